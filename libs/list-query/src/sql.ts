/**
 * Helpers for running a ListQuery: converting the TypeORM-style named
 * parameters to pg's positional ones, and applying a ListQuery to anything
 * shaped like a TypeORM SelectQueryBuilder (without importing TypeORM).
 */
import type { ListQuery } from './parse';

export interface PositionalQuery {
  text: string;
  values: unknown[];
}

/**
 * Rewrites `:name` placeholders to `$1, $2, ...` (numbering from `startAt`)
 * for raw `pg` use. String literals, quoted identifiers and `::` casts are
 * left alone; a name used twice gets one position. An unknown `:name` throws.
 */
export function toPositional(sql: string, params: Readonly<Record<string, unknown>>, startAt = 1): PositionalQuery {
  const values: unknown[] = [];
  const positions = new Map<string, number>();
  let text = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql.charAt(i);
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < sql.length) {
        if (sql.charAt(j) === c) {
          if (sql.charAt(j + 1) === c) j += 2;
          else break;
        } else j++;
      }
      text += sql.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === ':' && sql.charAt(i + 1) === ':') {
      text += '::';
      i += 2;
      continue;
    }
    const name = c === ':' ? /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))?.[0] : undefined;
    if (name === undefined) {
      text += c;
      i++;
      continue;
    }
    if (!Object.prototype.hasOwnProperty.call(params, name)) throw new Error(`toPositional: no value for :${name}`);
    let pos = positions.get(name);
    if (pos === undefined) {
      values.push(params[name]);
      pos = startAt + values.length - 1;
      positions.set(name, pos);
    }
    text += `$${pos}`;
    i += 1 + name.length;
  }
  return { text, values };
}

/** The subset of TypeORM's SelectQueryBuilder that applyListQuery uses. */
export interface ListQueryTarget<T> {
  andWhere(where: string, parameters?: Record<string, unknown>): T;
  addOrderBy(sort: string, order?: 'ASC' | 'DESC'): T;
  offset(offset?: number): T;
  limit(limit?: number): T;
}

/**
 * Adds the filters (AND-ed with whatever the builder already has, e.g. an
 * owner scope), the order and the page window. Uses offset/limit: with
 * to-many joins, load relations in a second query (or use skip/take with
 * property-path columns) so that joined rows do not eat the page.
 */
export function applyListQuery<T extends ListQueryTarget<T>>(qb: T, q: ListQuery): T {
  let out = qb;
  if (q.where) out = out.andWhere(q.where.sql, q.where.params);
  for (const o of q.orderBy) out = out.addOrderBy(o.column, o.direction);
  return out.offset(q.offset).limit(q.limit);
}
