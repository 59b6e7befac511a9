/**
 * The entry point: one call turns a request's query string into everything a
 * repository needs for a Strapi v4 list (filters as SQL + parameters, order,
 * page window, relations to populate) or throws one BadRequestError listing
 * every problem in `details.errors`.
 */
import { BadRequestError, isPlainObject } from '@docflow/service-kit';
import { parse as parseQs } from 'qs';
import { FilterCompiler, type SqlFragment } from './filters';
import { paginationWindow, parsePagination, type Pagination } from './pagination';
import { parsePopulate } from './populate';
import { parseSort, type OrderByItem } from './sort';
import type { ListSpec } from './spec';

export interface ListQuery<R extends string = string> {
  /** AND this into the query (`qb.andWhere(where.sql, where.params)`); null: no filter. */
  where: SqlFragment | null;
  /** Requested (or default) order, always ending with the unique id field. */
  orderBy: OrderByItem[];
  offset: number;
  limit: number;
  /** Relations to load, each one of the spec's relations. */
  populate: R[];
  /** What paginationMeta(pagination, total) needs for the response. */
  pagination: Pagination;
}

export type ListQueryInput = string | URLSearchParams | Readonly<Record<string, unknown>> | null | undefined;

export interface ParseListQueryOptions {
  /** Prefix of the parameter names (`lq` gives `lq_0`, `lq_1`, ...). */
  paramPrefix?: string;
}

/** The qs settings of Strapi v4. */
export const QS_OPTIONS = { depth: 20, arrayLimit: 100, parameterLimit: 1000 } as const;

/** The query string of a URL such as Express's `req.originalUrl` ('' when none). */
export function listQueryString(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return '';
  const hash = url.indexOf('#', q);
  return url.slice(q + 1, hash < 0 ? undefined : hash);
}

/**
 * Parses a query string with Strapi's qs settings. More parameters than qs
 * keeps would be silently dropped by qs, so that is an error instead.
 */
export function parseListQueryString(raw: string, errors: string[]): Record<string, unknown> {
  const s = raw.startsWith('?') ? raw.slice(1) : raw;
  if (s.split('&').length > QS_OPTIONS.parameterLimit) {
    errors.push(`query: too many parameters (at most ${QS_OPTIONS.parameterLimit})`);
    return {};
  }
  return parseQs(s, QS_OPTIONS);
}

const PREFIX = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses `pagination`, `sort`, `populate` and `filters` (other parameters are
 * ignored) against the spec. Throws BadRequestError with `details.errors`.
 */
export function parseListQuery<F extends string, R extends string>(input: ListQueryInput, spec: ListSpec<F, R>, options: ParseListQueryOptions = {}): ListQuery<R> {
  const prefix = options.paramPrefix ?? 'lq';
  if (!PREFIX.test(prefix)) throw new Error(`parseListQuery: invalid paramPrefix "${prefix}"`);
  const errors: string[] = [];
  let query: Readonly<Record<string, unknown>>;
  if (typeof input === 'string') query = parseListQueryString(input, errors);
  else if (input instanceof URLSearchParams) query = parseListQueryString(input.toString(), errors);
  else if (input === null || input === undefined) query = {};
  else if (isPlainObject(input)) query = input;
  else throw new Error('parseListQuery: input must be a query string or a plain object');

  const pagination = parsePagination(query.pagination, spec.limits, errors);
  const orderBy = parseSort(query.sort, spec, errors);
  const populate = parsePopulate(query.populate, spec, errors);
  const where = new FilterCompiler(spec, errors, prefix).compile(query.filters);

  if (errors.length > 0 || pagination === undefined) {
    throw BadRequestError.withErrors('Invalid list query', [...new Set(errors)]);
  }
  return { where, orderBy, ...paginationWindow(pagination), populate, pagination };
}
