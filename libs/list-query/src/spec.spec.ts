import { defineListSpec, type FieldDefinition } from './spec';

const id: FieldDefinition = { column: 'id', type: 'integer' };

describe('defineListSpec', () => {
  it('resolves fields, prefixes and defaults', () => {
    const spec = defineListSpec({
      fields: { id, 'owner.id': { column: 'owner_id', type: 'integer' }, meta: { column: 'meta', type: 'json' } },
      relations: ['owner'],
    });
    expect(spec.idField).toBe('id');
    expect(spec.defaultSort).toEqual([{ field: 'id', direction: 'asc' }]);
    expect(spec.fieldPrefixes.has('owner')).toBe(true);
    expect(spec.fields.get('meta')).toMatchObject({ sortable: false, filterable: true });
    expect(spec.fields.get('id')).toMatchObject({ sortable: true, filterable: true, column: 'id' });
    expect(spec.limits).toEqual({ defaultPageSize: 25, maxPageSize: 100, maxConditions: 200, maxSortFields: 10 });
    expect(Object.isFrozen(spec)).toBe(true);
  });

  it.each([
    ['no id field', { fields: { title: { column: 't', type: 'string' } } }, 'id field "id" is not among the fields'],
    ['a bad field name', { fields: { id, a$b: { column: 'x', type: 'string' } } }, 'invalid field name "a$b"'],
    ['an empty column', { fields: { id: { column: ' ', type: 'integer' } } }, 'invalid column for field "id"'],
    ['a column with a named placeholder', { fields: { id: { column: 'id + :x', type: 'integer' } } }, 'invalid column for field "id"'],
    ['a column with a semicolon', { fields: { id: { column: 'id; drop', type: 'integer' } } }, 'invalid column for field "id"'],
    ['an enum without values', { fields: { id, e: { column: 'e', type: 'enum', values: [] } } }, 'enum field "e" needs values'],
    ['an unknown default sort', { fields: { id }, defaultSort: [{ field: 'nope', direction: 'asc' }] }, 'default sort field "nope"'],
    ['duplicate relations', { fields: { id }, relations: ['a', 'a'] }, 'duplicate relation names'],
    ['a bad limit', { fields: { id }, limits: { maxPageSize: 0 } }, 'limit maxPageSize must be a positive integer'],
    ['a default above the max', { fields: { id }, limits: { defaultPageSize: 50, maxPageSize: 10 } }, 'defaultPageSize exceeds maxPageSize'],
  ])('refuses %s', (_name, def, message) => {
    expect(() => defineListSpec(def as Parameters<typeof defineListSpec>[0])).toThrow(message);
  });

  it('accepts :: casts in a column and a custom id field', () => {
    const spec = defineListSpec({ fields: { key: { column: `"t"."data"->>'key'::text`, type: 'string' } }, idField: 'key' });
    expect(spec.fields.get('key')?.column).toBe(`"t"."data"->>'key'::text`);
  });
});
