/**
 * Strapi v4 pagination: `pagination[page]`/`pagination[pageSize]` or
 * `pagination[start]`/`pagination[limit]` (never both), plus
 * `pagination[withCount]`. Sizes above the spec's maximum are clamped; a
 * `limit` of -1 means the maximum.
 */
import { isPlainObject } from '@docflow/service-kit';
import type { ListLimits } from './spec';
import { parseBooleanish, parseInteger, show } from './values';

export interface PagePagination {
  style: 'page';
  page: number;
  pageSize: number;
  withCount: boolean;
}

export interface OffsetPagination {
  style: 'offset';
  start: number;
  limit: number;
  withCount: boolean;
}

export type Pagination = PagePagination | OffsetPagination;

export interface PagePaginationMeta {
  page: number;
  pageSize: number;
  pageCount?: number;
  total?: number;
}

export interface OffsetPaginationMeta {
  start: number;
  limit: number;
  total?: number;
}

export type PaginationMeta = PagePaginationMeta | OffsetPaginationMeta;

const KEYS = new Set(['page', 'pageSize', 'start', 'limit', 'withCount']);

export function parsePagination(value: unknown, limits: Readonly<ListLimits>, errors: string[]): Pagination | undefined {
  const fallback: Pagination = { style: 'page', page: 1, pageSize: limits.defaultPageSize, withCount: true };
  if (value === undefined) return fallback;
  if (!isPlainObject(value)) {
    errors.push('pagination: must be an object such as pagination[page]=1&pagination[pageSize]=25');
    return undefined;
  }
  const before = errors.length;
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) errors.push(`pagination[${key.slice(0, 64)}]: unknown pagination parameter`);
  }
  const has = (k: string): boolean => value[k] !== undefined;
  const int = (key: string, min: number, rule: string): number | undefined => {
    const n = parseInteger(value[key]);
    if (n === undefined || n < min) {
      errors.push(`pagination[${key}]: expected ${rule}, got ${show(value[key])}`);
      return undefined;
    }
    return n;
  };

  let withCount = true;
  if (has('withCount')) {
    const b = parseBooleanish(value.withCount);
    if (b === undefined) errors.push(`pagination[withCount]: expected true or false, got ${show(value.withCount)}`);
    withCount = b ?? true;
  }

  const pageStyle = has('page') || has('pageSize');
  const offsetStyle = has('start') || has('limit');
  if (pageStyle && offsetStyle) {
    errors.push('pagination: page/pageSize and start/limit cannot be combined');
    return undefined;
  }

  if (offsetStyle) {
    const start = has('start') ? int('start', 0, 'an integer >= 0') : 0;
    let limit: number | undefined = limits.defaultPageSize;
    if (has('limit')) {
      limit = value.limit === '-1' || value.limit === -1 ? limits.maxPageSize : int('limit', 1, 'an integer >= 1 or -1');
    }
    if (start === undefined || limit === undefined || errors.length > before) return undefined;
    return { style: 'offset', start, limit: Math.min(limit, limits.maxPageSize), withCount };
  }

  const page = has('page') ? int('page', 1, 'an integer >= 1') : 1;
  const size = has('pageSize') ? int('pageSize', 1, 'an integer >= 1') : limits.defaultPageSize;
  if (page === undefined || size === undefined || errors.length > before) return undefined;
  const pageSize = Math.min(size, limits.maxPageSize);
  if (!Number.isSafeInteger((page - 1) * pageSize)) {
    errors.push(`pagination[page]: ${page} is too large`);
    return undefined;
  }
  return { style: 'page', page, pageSize, withCount };
}

export function paginationWindow(p: Pagination): { offset: number; limit: number } {
  return p.style === 'page' ? { offset: (p.page - 1) * p.pageSize, limit: p.pageSize } : { offset: p.start, limit: p.limit };
}

/**
 * The `meta.pagination` object of a list response. `total` is left out (and
 * `pageCount` with it) when the request said `pagination[withCount]=false`
 * or no total is given.
 */
export function paginationMeta(p: PagePagination, total?: number): PagePaginationMeta;
export function paginationMeta(p: OffsetPagination, total?: number): OffsetPaginationMeta;
export function paginationMeta(p: Pagination, total?: number): PaginationMeta;
export function paginationMeta(p: Pagination, total?: number): PaginationMeta {
  if (p.style === 'offset') {
    if (!p.withCount || total === undefined) return { start: p.start, limit: p.limit };
    return { start: p.start, limit: p.limit, total };
  }
  if (!p.withCount || total === undefined) return { page: p.page, pageSize: p.pageSize };
  return { page: p.page, pageSize: p.pageSize, pageCount: Math.ceil(total / p.pageSize), total };
}
