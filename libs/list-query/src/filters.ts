/**
 * Compiles Strapi v4 `filters` into one SQL boolean expression with named
 * parameters (`:lq_0`, `:lq_1`, ...). Columns come only from the spec; every
 * request value becomes a parameter. Problems are collected, not thrown.
 *
 * Invariant: every fragment returned is either a single predicate or wrapped
 * in parentheses, so it combines safely with AND, OR and NOT.
 */
import { isPlainObject } from '@docflow/service-kit';
import type { ListSpec, ResolvedField } from './spec';
import { asList, castText, castValue, escapeLike, parseBooleanish, show, type Scalar } from './values';

export const OPERATORS = [
  '$eq',
  '$eqi',
  '$ne',
  '$nei',
  '$lt',
  '$lte',
  '$gt',
  '$gte',
  '$in',
  '$notIn',
  '$between',
  '$contains',
  '$notContains',
  '$containsi',
  '$notContainsi',
  '$startsWith',
  '$startsWithi',
  '$endsWith',
  '$endsWithi',
  '$null',
  '$notNull',
] as const;
export type FieldOperator = (typeof OPERATORS)[number];

export type ParamValue = Scalar | readonly Scalar[];

export interface SqlFragment {
  sql: string;
  params: Record<string, ParamValue>;
}

const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);
const EQUALITY: ReadonlySet<FieldOperator> = new Set(['$eq', '$ne', '$in', '$notIn']);
const ORDERING: ReadonlySet<FieldOperator> = new Set(['$lt', '$lte', '$gt', '$gte', '$between']);
const NULLS: ReadonlySet<FieldOperator> = new Set(['$null', '$notNull']);
/** Deeper than qs ever produces at depth 20; guards already parsed objects. */
const MAX_DEPTH = 32;
const LIKE_ESCAPE = `ESCAPE '\\'`;

function supports(field: ResolvedField, op: FieldOperator): boolean {
  if (NULLS.has(op)) return true;
  switch (field.type) {
    case 'json':
      return false;
    case 'boolean':
      return EQUALITY.has(op);
    case 'enum':
      return !ORDERING.has(op);
    case 'integer':
    case 'bigint':
    case 'number':
    case 'date':
      return EQUALITY.has(op) || ORDERING.has(op);
    case 'string':
      return true;
    default: {
      const never: never = field.type;
      return never;
    }
  }
}

const isFieldOperator = (key: string): key is FieldOperator => OPERATOR_SET.has(key);
const clip = (key: string): string => (key.length > 64 ? `${key.slice(0, 64)}…` : key);

export class FilterCompiler {
  readonly params: Record<string, ParamValue> = {};
  private counter = 0;
  private conditions = 0;
  private aborted = false;

  constructor(
    private readonly spec: ListSpec,
    private readonly errors: string[],
    private readonly paramPrefix = 'lq',
  ) {}

  /** The whole `filters` value; null when it adds no condition. */
  compile(filters: unknown): SqlFragment | null {
    if (filters === undefined) return null;
    const sql = this.node(filters, [], 'filters', 0);
    return sql === null || this.aborted ? null : { sql, params: this.params };
  }

  private fail(label: string, message: string): void {
    this.errors.push(`${label}: ${message}`);
  }

  private node(value: unknown, path: readonly string[], label: string, depth: number): string | null {
    if (this.aborted) return null;
    if (depth > MAX_DEPTH) {
      this.fail(label, 'nested too deeply');
      return null;
    }
    if (isPlainObject(value)) return this.objectNode(value, path, label, depth);
    if (path.length === 0) {
      if (Array.isArray(value)) {
        return this.combine(
          value.map((v, i) => this.node(v, path, `${label}[${i}]`, depth + 1)),
          'AND',
        );
      }
      this.fail(label, 'must be an object of conditions');
      return null;
    }
    // A bare value on a field: `filters[title]=x`, a list, or null.
    if (value === null) return this.leaf(path, '$null', true, label);
    return this.leaf(path, Array.isArray(value) ? '$in' : '$eq', value, label);
  }

  private objectNode(obj: Record<string, unknown>, path: readonly string[], label: string, depth: number): string | null {
    const parts: (string | null)[] = [];
    for (const key of Object.keys(obj)) {
      const value = obj[key];
      const here = `${label}[${clip(key)}]`;
      if (key === '$and' || key === '$or') {
        const list = asList(value);
        if (!list) {
          this.fail(here, 'must be an array of conditions');
          continue;
        }
        const inner = list.map((v, i) => this.node(v, path, `${here}[${i}]`, depth + 1));
        parts.push(this.combine(inner, key === '$and' ? 'AND' : 'OR'));
      } else if (key === '$not') {
        const inner = this.node(value, path, here, depth + 1);
        // NULL-safe: a row whose inner condition is unknown (NULL) is "not" matched.
        parts.push(inner === null ? null : `NOT COALESCE(${inner}, FALSE)`);
      } else if (key.startsWith('$')) {
        parts.push(this.leaf(path, key, value, here));
      } else {
        const segments = key.split('.');
        const next = [...path, ...segments];
        const name = next.join('.');
        if (segments.some((s) => s === '') || (!this.spec.fields.has(name) && !this.spec.fieldPrefixes.has(name))) {
          this.fail(here, `unknown field ${show(name)}`);
          continue;
        }
        parts.push(this.node(value, next, here, depth + 1));
      }
    }
    return this.combine(parts, 'AND');
  }

  private combine(parts: readonly (string | null)[], joiner: 'AND' | 'OR'): string | null {
    const present = parts.filter((p): p is string => p !== null);
    if (present.length <= 1) return present[0] ?? null;
    return `(${present.join(` ${joiner} `)})`;
  }

  private resolve(path: readonly string[], label: string): ResolvedField | undefined {
    const name = path.join('.');
    // `filters[owner][$eq]=3` means the related record's id, as in Strapi.
    const field = this.spec.fields.get(name) ?? this.spec.fields.get(`${name}.id`);
    if (!field) this.fail(label, `${show(name)} is not a filterable field`);
    else if (!field.filterable) this.fail(label, `field ${show(field.name)} cannot be filtered`);
    return field?.filterable ? field : undefined;
  }

  private count(n: number, label: string): boolean {
    this.conditions += n;
    if (this.conditions > this.spec.limits.maxConditions) {
      this.fail(label, `too many conditions (at most ${this.spec.limits.maxConditions})`);
      this.aborted = true;
      return false;
    }
    return true;
  }

  private param(value: ParamValue): string {
    const name = `${this.paramPrefix}_${this.counter++}`;
    this.params[name] = value;
    return `:${name}`;
  }

  private leaf(path: readonly string[], op: string, value: unknown, label: string): string | null {
    if (!isFieldOperator(op)) {
      this.fail(label, `unknown operator ${show(op)}`);
      return null;
    }
    if (path.length === 0) {
      this.fail(label, `operator ${op} must follow a field name`);
      return null;
    }
    const field = this.resolve(path, label);
    if (!field) return null;
    if (!supports(field, op)) {
      this.fail(label, `operator ${op} is not supported on ${field.type} field ${show(field.name)}`);
      return null;
    }
    const sql = this.operator(field, op, value, label);
    return sql !== null && this.count(this.weight(op, value), label) ? sql : null;
  }

  private weight(op: FieldOperator, value: unknown): number {
    if (op === '$in' || op === '$notIn') return Math.max(1, asList(value)?.length ?? 1);
    return op === '$between' ? 2 : 1;
  }

  private one(field: ResolvedField, value: unknown, label: string): Scalar | undefined {
    if (Array.isArray(value) || isPlainObject(value)) {
      this.fail(label, `expected a single value, got ${show(value)}`);
      return undefined;
    }
    const cast = castValue(field, value);
    if (!cast.ok) this.fail(label, cast.error);
    return cast.ok ? cast.value : undefined;
  }

  private many(field: ResolvedField, value: unknown, label: string): Scalar[] | undefined {
    const list = asList(value) ?? (isPlainObject(value) ? undefined : [value]);
    if (!list) {
      this.fail(label, `expected a list of values, got ${show(value)}`);
      return undefined;
    }
    if (list.length > this.spec.limits.maxConditions) {
      this.fail(label, `too many values (at most ${this.spec.limits.maxConditions})`);
      return undefined;
    }
    const out: Scalar[] = [];
    list.forEach((v, i) => {
      const cast = this.one(field, v, `${label}[${i}]`);
      if (cast !== undefined) out.push(cast);
    });
    return out.length === list.length ? out : undefined;
  }

  private text(value: unknown, label: string): string | undefined {
    const cast = castText(value);
    if (!cast.ok) this.fail(label, cast.error);
    return cast.ok ? String(cast.value) : undefined;
  }

  private operator(field: ResolvedField, op: FieldOperator, value: unknown, label: string): string | null {
    const col = field.column;
    // LIKE and lower() need text; an enum column may be a PostgreSQL enum type.
    const txt = field.type === 'string' ? col : `CAST(${col} AS text)`;
    const like = (pattern: (v: string) => string, negate: boolean, ci: boolean): string | null => {
      const v = this.text(value, label);
      if (v === undefined) return null;
      const cond = `${txt} ${negate ? 'NOT ' : ''}${ci ? 'ILIKE' : 'LIKE'} ${this.param(pattern(escapeLike(v)))} ${LIKE_ESCAPE}`;
      return negate ? `(${col} IS NULL OR ${cond})` : cond;
    };
    const compare = (sqlOp: string): string | null => {
      const v = this.one(field, value, label);
      return v === undefined ? null : `${col} ${sqlOp} ${this.param(v)}`;
    };
    switch (op) {
      case '$eq':
        return value === null ? `${col} IS NULL` : compare('=');
      case '$ne':
        return value === null ? `${col} IS NOT NULL` : compare('IS DISTINCT FROM');
      case '$lt':
        return compare('<');
      case '$lte':
        return compare('<=');
      case '$gt':
        return compare('>');
      case '$gte':
        return compare('>=');
      case '$eqi':
      case '$nei': {
        if (value === null) return `${col} IS ${op === '$eqi' ? '' : 'NOT '}NULL`;
        const v = this.text(value, label);
        if (v === undefined) return null;
        return `lower(${txt}) ${op === '$eqi' ? '=' : 'IS DISTINCT FROM'} lower(CAST(${this.param(v)} AS text))`;
      }
      case '$in':
      case '$notIn': {
        const list = this.many(field, value, label);
        if (list === undefined) return null;
        const p = this.param(list);
        return op === '$in' ? `${col} = ANY(${p})` : `(${col} IS NULL OR ${col} <> ALL(${p}))`;
      }
      case '$between': {
        const list = asList(value);
        if (!list || list.length !== 2) {
          this.fail(label, 'expects exactly two values');
          return null;
        }
        const lo = this.one(field, list[0], `${label}[0]`);
        const hi = this.one(field, list[1], `${label}[1]`);
        if (lo === undefined || hi === undefined) return null;
        return `${col} BETWEEN ${this.param(lo)} AND ${this.param(hi)}`;
      }
      case '$contains':
        return like((v) => `%${v}%`, false, false);
      case '$notContains':
        return like((v) => `%${v}%`, true, false);
      case '$containsi':
        return like((v) => `%${v}%`, false, true);
      case '$notContainsi':
        return like((v) => `%${v}%`, true, true);
      case '$startsWith':
        return like((v) => `${v}%`, false, false);
      case '$startsWithi':
        return like((v) => `${v}%`, false, true);
      case '$endsWith':
        return like((v) => `%${v}`, false, false);
      case '$endsWithi':
        return like((v) => `%${v}`, false, true);
      case '$null':
      case '$notNull': {
        const b = parseBooleanish(value);
        if (b === undefined) {
          this.fail(label, `expected true or false, got ${show(value)}`);
          return null;
        }
        return `${col} IS ${b === (op === '$null') ? '' : 'NOT '}NULL`;
      }
      default: {
        const never: never = op;
        this.fail(label, `unknown operator ${show(never)}`);
        return null;
      }
    }
  }
}
