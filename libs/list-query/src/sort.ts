/**
 * Strapi v4 `sort`: `title`, `title:asc`, `createdAt:DESC`, a comma list, an
 * array (`sort[0]=title:asc`, `sort[]=...`), or the object form
 * (`sort[title]=asc`, `sort[0][title]=asc`, `sort[owner][id]=desc`). A
 * unique tiebreaker (the spec's id field) is always appended.
 */
import { isPlainObject } from '@docflow/service-kit';
import type { ListSpec } from './spec';
import { asList, show } from './values';

export interface OrderByItem {
  /** Public field name, e.g. `createdAt`. */
  field: string;
  /** SQL column from the spec, for `qb.addOrderBy(column, direction)`. */
  column: string;
  direction: 'ASC' | 'DESC';
}

interface SortKey {
  field: string;
  direction: string | undefined;
  label: string;
}

function collect(value: unknown, label: string, out: SortKey[], errors: string[], prefix = ''): void {
  if (typeof value === 'string') {
    for (const token of value.split(',')) {
      const t = token.trim();
      if (!t) continue;
      const [field = '', direction, extra] = t.split(':').map((s) => s.trim());
      if (extra !== undefined) errors.push(`${label}: invalid sort ${show(t)}`);
      else out.push({ field: prefix + field, direction, label });
    }
    return;
  }
  const list = asList(value);
  if (list && !prefix) {
    list.forEach((v, i) => collect(v, `${label}[${i}]`, out, errors));
    return;
  }
  if (isPlainObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      const here = `${label}[${key.slice(0, 64)}]`;
      if (typeof v === 'string') out.push({ field: prefix + key, direction: v.trim(), label: here });
      else if (isPlainObject(v)) collect(v, here, out, errors, `${prefix}${key}.`);
      else errors.push(`${here}: expected asc or desc, got ${show(v)}`);
    }
    return;
  }
  errors.push(`${label}: expected a string such as createdAt:desc, got ${show(value)}`);
}

export function parseSort(value: unknown, spec: ListSpec, errors: string[]): OrderByItem[] {
  const keys: SortKey[] = [];
  const before = errors.length;
  if (value !== undefined) collect(value, 'sort', keys, errors);
  if (keys.length > spec.limits.maxSortFields) {
    errors.push(`sort: too many sort fields (at most ${spec.limits.maxSortFields})`);
    return [];
  }
  const items: OrderByItem[] = [];
  for (const key of keys) {
    const field = spec.fields.get(key.field);
    if (!field || !field.sortable) {
      errors.push(`${key.label}: ${show(key.field)} is not a sortable field`);
      continue;
    }
    const dir = key.direction === undefined ? 'asc' : key.direction.toLowerCase();
    if (dir !== 'asc' && dir !== 'desc') {
      errors.push(`${key.label}: invalid direction ${show(key.direction)} for ${show(key.field)} (use asc or desc)`);
      continue;
    }
    if (!items.some((i) => i.field === field.name)) {
      items.push({ field: field.name, column: field.column, direction: dir === 'asc' ? 'ASC' : 'DESC' });
    }
  }
  if (errors.length > before) return [];
  if (items.length === 0) {
    for (const s of spec.defaultSort) {
      const field = spec.fields.get(s.field);
      if (field) items.push({ field: field.name, column: field.column, direction: s.direction === 'asc' ? 'ASC' : 'DESC' });
    }
  }
  const id = spec.fields.get(spec.idField);
  if (id && !items.some((i) => i.field === id.name)) {
    // Same direction as the last key, so "newest first" stays newest first among ties.
    items.push({ field: id.name, column: id.column, direction: items.at(-1)?.direction ?? 'ASC' });
  }
  return items;
}
