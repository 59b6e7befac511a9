/**
 * What one list endpoint allows: which fields may be filtered and sorted (and
 * the SQL column each maps to), which relations may be populated, the default
 * order and the limits. Defined once per resource, at module load; a mistake
 * here is a programming error and throws a plain Error immediately.
 */

export type FieldType = 'integer' | 'bigint' | 'number' | 'string' | 'boolean' | 'date' | 'enum' | 'json';

interface FieldCommon {
  /**
   * SQL expression of the column, e.g. `"d"."created_at"` (raw pg) or
   * `d.createdAt` (a TypeORM property path, rewritten by the query builder).
   * It is trusted text from code, never from a request.
   */
  column: string;
  /** Default true. */
  filterable?: boolean;
  /** Default true, except for json fields. */
  sortable?: boolean;
}

export type FieldDefinition = (FieldCommon & { type: Exclude<FieldType, 'enum'> }) | (FieldCommon & { type: 'enum'; values: readonly string[] });

export type SortDirection = 'asc' | 'desc';

export interface SortDefinition<F extends string> {
  field: F;
  direction: SortDirection;
}

export interface ListLimits {
  /** pageSize / limit when the request gives none. Default 25. */
  defaultPageSize: number;
  /** Larger pageSize / limit values are clamped to this. Default 100. */
  maxPageSize: number;
  /** Compared values allowed in `filters` (each `$in` element counts). Default 200. */
  maxConditions: number;
  /** Sort keys a request may give. Default 10. */
  maxSortFields: number;
}

export interface ListSpecDefinition<F extends string, R extends string> {
  /** Keys are the public field names; nested ones use dots (`owner.id`). */
  fields: Record<F, FieldDefinition>;
  relations?: readonly R[];
  /** Used when the request has no `sort`. Default: the id field ascending. */
  defaultSort?: readonly SortDefinition<NoInfer<F>>[];
  /** The unique field appended to every sort so that pages are stable. Default `id`. */
  idField?: NoInfer<F>;
  limits?: Partial<ListLimits>;
}

export interface ResolvedField {
  name: string;
  column: string;
  type: FieldType;
  /** Allowed values of an enum field, empty for other types. */
  enumValues: readonly string[];
  filterable: boolean;
  sortable: boolean;
}

export interface ListSpec<F extends string = string, R extends string = string> {
  readonly fields: ReadonlyMap<string, ResolvedField>;
  /** Every proper prefix of a dotted field name (`owner` for `owner.id`). */
  readonly fieldPrefixes: ReadonlySet<string>;
  readonly relations: readonly R[];
  readonly defaultSort: readonly SortDefinition<F>[];
  readonly idField: F;
  readonly limits: Readonly<ListLimits>;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** A single colon would read as a named parameter (`:name`); `::` casts are fine. */
const SINGLE_COLON = /(^|[^:]):(?!:)/;
const DEFAULT_LIMITS: ListLimits = { defaultPageSize: 25, maxPageSize: 100, maxConditions: 200, maxSortFields: 10 };

export function defineListSpec<F extends string, R extends string = never>(def: ListSpecDefinition<F, R>): ListSpec<F, R> {
  const problem = (msg: string): never => {
    throw new Error(`defineListSpec: ${msg}`);
  };
  const fields = new Map<string, ResolvedField>();
  const fieldPrefixes = new Set<string>();
  for (const [name, field] of Object.entries<FieldDefinition>(def.fields)) {
    if (!NAME.test(name)) problem(`invalid field name "${name}"`);
    const column = field.column.trim();
    if (!column || column.includes(';') || SINGLE_COLON.test(column)) problem(`invalid column for field "${name}"`);
    const enumValues = field.type === 'enum' ? [...field.values] : [];
    if (field.type === 'enum' && enumValues.length === 0) problem(`enum field "${name}" needs values`);
    fields.set(name, {
      name,
      column,
      type: field.type,
      enumValues,
      filterable: field.filterable ?? true,
      sortable: field.sortable ?? field.type !== 'json',
    });
    const parts = name.split('.');
    for (let i = 1; i < parts.length; i++) fieldPrefixes.add(parts.slice(0, i).join('.'));
  }
  if (fields.size === 0) problem('at least one field is required');

  const idField = (def.idField ?? 'id') as F;
  const id = fields.get(idField);
  if (!id) problem(`id field "${idField}" is not among the fields`);
  if (id && (id.type === 'json' || !id.sortable)) problem(`id field "${idField}" must be sortable`);

  const defaultSort = def.defaultSort ?? [{ field: idField, direction: 'asc' as const }];
  for (const s of defaultSort) {
    if (!fields.get(s.field)?.sortable) problem(`default sort field "${s.field}" is not a sortable field`);
  }

  const relations = [...(def.relations ?? [])];
  if (new Set(relations).size !== relations.length) problem('duplicate relation names');
  for (const r of relations) if (!NAME.test(r)) problem(`invalid relation name "${r}"`);

  const limits: ListLimits = { ...DEFAULT_LIMITS, ...def.limits };
  for (const [k, v] of Object.entries(limits)) {
    if (!Number.isSafeInteger(v) || v < 1) problem(`limit ${k} must be a positive integer`);
  }
  if (limits.defaultPageSize > limits.maxPageSize) problem('defaultPageSize exceeds maxPageSize');

  return Object.freeze({
    fields,
    fieldPrefixes,
    relations: Object.freeze(relations),
    defaultSort: Object.freeze([...defaultSort]),
    idField,
    limits: Object.freeze(limits),
  });
}
