/**
 * Strapi v4 `populate`: `*`, a name, a comma list, an array
 * (`populate[0]=owner`), or the object form (`populate[owner]=true`,
 * `populate[owner][populate]=*`; what is inside the object is tolerated and
 * ignored). Returns the relation names to load, without duplicates.
 */
import { isPlainObject } from '@docflow/service-kit';
import type { ListSpec } from './spec';
import { asList, parseBooleanish, show } from './values';

export function parsePopulate<R extends string>(value: unknown, spec: ListSpec<string, R>, errors: string[]): R[] {
  const wanted: string[] = [];
  let all = false;
  const before = errors.length;
  const addNames = (s: string): void => {
    for (const token of s.split(',')) {
      const name = token.trim();
      if (name === '*') all = true;
      else if (name) wanted.push(name);
    }
  };
  const list = asList(value);
  if (value === undefined) {
    // nothing requested
  } else if (typeof value === 'string') {
    addNames(value);
  } else if (list) {
    list.forEach((v, i) => {
      if (typeof v === 'string') addNames(v);
      else errors.push(`populate[${i}]: expected a relation name, got ${show(v)}`);
    });
  } else if (isPlainObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      const flag = isPlainObject(v) || v === '*' ? true : parseBooleanish(v);
      if (flag === undefined) errors.push(`populate[${key.slice(0, 64)}]: expected true, false or an object, got ${show(v)}`);
      else if (flag && key === '*') all = true;
      else if (flag) wanted.push(key);
    }
  } else {
    errors.push(`populate: expected a relation name, a list or *, got ${show(value)}`);
  }
  const known = new Set<string>(spec.relations);
  for (const name of wanted) {
    if (!known.has(name)) errors.push(`populate: unknown relation ${show(name)}`);
  }
  if (errors.length > before) return [];
  if (all) return [...spec.relations];
  return spec.relations.filter((r) => wanted.includes(r)).sort((a, b) => wanted.indexOf(a) - wanted.indexOf(b));
}
