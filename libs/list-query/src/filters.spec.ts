import { parseListQuery } from './parse';
import { defineListSpec } from './spec';
import { docSpec, errorsOf, parse } from './test-fixture';

const where = (raw: string | Record<string, unknown>) => parse(raw).where;

describe('filters: one operator each', () => {
  it.each([
    ['filters[title][$eq]=Report', '"d"."title" = :lq_0', 'Report'],
    ['filters[title]=Report', '"d"."title" = :lq_0', 'Report'],
    ['filters[id][$ne]=3', '"d"."id" IS DISTINCT FROM :lq_0', 3],
    ['filters[id][$lt]=3', '"d"."id" < :lq_0', 3],
    ['filters[id][$lte]=3', '"d"."id" <= :lq_0', 3],
    ['filters[id][$gt]=-3', '"d"."id" > :lq_0', -3],
    ['filters[id][$gte]=3', '"d"."id" >= :lq_0', 3],
    ['filters[score][$gt]=1.5', '"d"."score" > :lq_0', 1.5],
    ['filters[views][$gt]=9007199254740991', '"d"."views" > :lq_0', 9007199254740991],
    ['filters[ragEnabled][$eq]=1', '"d"."rag_enabled" = :lq_0', true],
    ['filters[ragEnabled][$eq]=false', '"d"."rag_enabled" = :lq_0', false],
    ['filters[level][$eq]=system', '"d"."level" = :lq_0', 'system'],
    ['filters[createdAt][$gte]=2024-01-02', '"d"."created_at" >= :lq_0', '2024-01-02T00:00:00Z'],
    ['filters[title][$eqi]=REPORT', 'lower("d"."title") = lower(CAST(:lq_0 AS text))', 'REPORT'],
    ['filters[title][$nei]=REPORT', 'lower("d"."title") IS DISTINCT FROM lower(CAST(:lq_0 AS text))', 'REPORT'],
    ['filters[title][$contains]=ep', `"d"."title" LIKE :lq_0 ESCAPE '\\'`, '%ep%'],
    ['filters[title][$containsi]=EP', `"d"."title" ILIKE :lq_0 ESCAPE '\\'`, '%EP%'],
    ['filters[title][$notContains]=ep', `("d"."title" IS NULL OR "d"."title" NOT LIKE :lq_0 ESCAPE '\\')`, '%ep%'],
    ['filters[title][$notContainsi]=ep', `("d"."title" IS NULL OR "d"."title" NOT ILIKE :lq_0 ESCAPE '\\')`, '%ep%'],
    ['filters[title][$startsWith]=Re', `"d"."title" LIKE :lq_0 ESCAPE '\\'`, 'Re%'],
    ['filters[title][$startsWithi]=re', `"d"."title" ILIKE :lq_0 ESCAPE '\\'`, 're%'],
    ['filters[title][$endsWith]=rt', `"d"."title" LIKE :lq_0 ESCAPE '\\'`, '%rt'],
    ['filters[title][$endsWithi]=RT', `"d"."title" ILIKE :lq_0 ESCAPE '\\'`, '%RT'],
    ['filters[level][$containsi]=SYS', `CAST("d"."level" AS text) ILIKE :lq_0 ESCAPE '\\'`, '%SYS%'],
  ])('%s', (raw, sql, value) => {
    expect(where(raw)).toEqual({ sql, params: { lq_0: value } });
  });

  it.each([
    ['filters[title][$null]=true', '"d"."title" IS NULL'],
    ['filters[title][$null]=false', '"d"."title" IS NOT NULL'],
    ['filters[title][$notNull]=1', '"d"."title" IS NOT NULL'],
    ['filters[title][$notNull]=0', '"d"."title" IS NULL'],
    ['filters[metadata][$null]=true', '"d"."metadata" IS NULL'],
    ['filters[metadata][$notNull]=true', '"d"."metadata" IS NOT NULL'],
  ])('%s', (raw, sql) => {
    expect(where(raw)).toEqual({ sql, params: {} });
  });

  it('$in and $notIn take arrays, index objects or a single value', () => {
    expect(where('filters[id][$in][0]=1&filters[id][$in][1]=2')).toEqual({ sql: '"d"."id" = ANY(:lq_0)', params: { lq_0: [1, 2] } });
    expect(where('filters[id][$in][]=4&filters[id][$in][]=5')?.params).toEqual({ lq_0: [4, 5] });
    expect(where('filters[id][$in]=7')?.params).toEqual({ lq_0: [7] });
    expect(where('filters[id][$in][150]=2&filters[id][$in][0]=1')?.params).toEqual({ lq_0: [1, 2] });
    expect(where('filters[level][$notIn][0]=user')).toEqual({
      sql: '("d"."level" IS NULL OR "d"."level" <> ALL(:lq_0))',
      params: { lq_0: ['user'] },
    });
    expect(where('filters[id][0]=1&filters[id][1]=3')).toEqual({ sql: '"d"."id" = ANY(:lq_0)', params: { lq_0: [1, 3] } });
  });

  it('$between takes exactly two values, cast by type', () => {
    expect(where('filters[createdAt][$between][0]=2024-01-01&filters[createdAt][$between][1]=2024-01-31T12:00:00+02:00')).toEqual({
      sql: '"d"."created_at" BETWEEN :lq_0 AND :lq_1',
      params: { lq_0: '2024-01-01T00:00:00Z', lq_1: '2024-01-31T10:00:00Z' },
    });
    expect(errorsOf('filters[id][$between][0]=1')).toEqual(['filters[id][$between]: expects exactly two values']);
    expect(errorsOf('filters[id][$between]=1')).toEqual(['filters[id][$between]: expects exactly two values']);
    expect(errorsOf('filters[id][$between][0]=1&filters[id][$between][1]=2&filters[id][$between][2]=3')).toHaveLength(1);
    expect(errorsOf('filters[id][$between][0]=1&filters[id][$between][1]=x')).toEqual(['filters[id][$between][1]: expected an integer, got "x"']);
  });

  it('null in an already parsed object means IS NULL / IS NOT NULL', () => {
    expect(where({ filters: { title: null } })?.sql).toBe('"d"."title" IS NULL');
    expect(where({ filters: { title: { $eq: null } } })?.sql).toBe('"d"."title" IS NULL');
    expect(where({ filters: { title: { $ne: null } } })?.sql).toBe('"d"."title" IS NOT NULL');
    expect(where({ filters: { id: { $in: [1, 2], $gt: 0 } } })).toEqual({
      sql: '("d"."id" = ANY(:lq_0) AND "d"."id" > :lq_1)',
      params: { lq_0: [1, 2], lq_1: 0 },
    });
    expect(where({ filters: { ragEnabled: true, score: 2.5 } })?.params).toEqual({ lq_0: true, lq_1: 2.5 });
  });
});

describe('filters: LIKE escaping and injection-looking input', () => {
  it('escapes %, _ and backslash inside patterns', () => {
    expect(where('filters[title][$contains]=50%25_off%5C')?.params).toEqual({ lq_0: '%50\\%\\_off\\\\%' });
  });

  it('keeps values out of the SQL text', () => {
    const evil = "x' OR 1=1; DROP TABLE documents; --";
    const w = where(`filters[title][$eq]=${encodeURIComponent(evil)}&filters[title][$containsi]=${encodeURIComponent(evil)}`);
    expect(w?.sql).toBe(`("d"."title" = :lq_0 AND "d"."title" ILIKE :lq_1 ESCAPE '\\')`);
    expect(w?.sql).not.toContain('DROP');
    expect(w?.params.lq_0).toBe(evil);
  });

  it('refuses field names and operators that are not in the spec', () => {
    expect(errorsOf('filters[title"; DROP TABLE x; --][$eq]=1')).toEqual(['filters[title"; DROP TABLE x; --]: unknown field "title\\"; DROP TABLE x; --"']);
    expect(errorsOf('filters[title][$eq) OR (1=1]=1')).toEqual(['filters[title][$eq) OR (1=1]: unknown operator "$eq) OR (1=1"']);
  });
});

describe('filters: nesting and logic', () => {
  it('maps nested fields to dotted spec fields', () => {
    expect(where('filters[owner][id][$eq]=1')).toEqual({ sql: '"d"."owner_id" = :lq_0', params: { lq_0: 1 } });
    expect(where('filters[owner][id]=1')?.sql).toBe('"d"."owner_id" = :lq_0');
    expect(where('filters[owner.id][$eq]=1')?.sql).toBe('"d"."owner_id" = :lq_0');
    expect(where('filters[owner][username][$containsi]=al')?.sql).toBe(`"o"."username" ILIKE :lq_0 ESCAPE '\\'`);
  });

  it('treats an operator on a relation as its id (filters[owner][$eq]=3)', () => {
    expect(where('filters[owner][$eq]=3')).toEqual({ sql: '"d"."owner_id" = :lq_0', params: { lq_0: 3 } });
    expect(where('filters[owner]=3')?.sql).toBe('"d"."owner_id" = :lq_0');
  });

  it('ANDs several fields and operators', () => {
    expect(where('filters[title][$contains]=a&filters[id][$gt]=1&filters[id][$lt]=9')).toEqual({
      sql: `("d"."title" LIKE :lq_0 ESCAPE '\\' AND ("d"."id" > :lq_1 AND "d"."id" < :lq_2))`,
      params: { lq_0: '%a%', lq_1: 1, lq_2: 9 },
    });
  });

  it('supports $or and $and as arrays and index objects, parenthesized', () => {
    expect(where('filters[$or][0][title][$eq]=a&filters[$or][1][id][$eq]=2')).toEqual({
      sql: '("d"."title" = :lq_0 OR "d"."id" = :lq_1)',
      params: { lq_0: 'a', lq_1: 2 },
    });
    expect(where('filters[$or][150][id]=2&filters[$or][0][id]=1')?.sql).toBe('("d"."id" = :lq_0 OR "d"."id" = :lq_1)');
    expect(where('filters[$and][0][id][$gt]=1&filters[$and][1][$or][0][level]=user&filters[$and][1][$or][1][ragEnabled]=true')?.sql).toBe(
      '("d"."id" > :lq_0 AND ("d"."level" = :lq_1 OR "d"."rag_enabled" = :lq_2))',
    );
    expect(where('filters[$or][0][id]=1')?.sql).toBe('"d"."id" = :lq_0');
  });

  it('supports logic operators inside a field', () => {
    expect(where('filters[title][$or][0][$eq]=a&filters[title][$or][1][$startsWith]=b')?.sql).toBe(`("d"."title" = :lq_0 OR "d"."title" LIKE :lq_1 ESCAPE '\\')`);
  });

  it('$not wraps an object NULL-safely, at the top or on a field', () => {
    expect(where('filters[$not][title][$eq]=a')).toEqual({ sql: 'NOT COALESCE("d"."title" = :lq_0, FALSE)', params: { lq_0: 'a' } });
    expect(where('filters[id][$not][$in][0]=1&filters[id][$not][$in][1]=2')?.sql).toBe('NOT COALESCE("d"."id" = ANY(:lq_0), FALSE)');
    expect(where('filters[$not][$or][0][id]=1&filters[$not][$or][1][id]=2')?.sql).toBe('NOT COALESCE(("d"."id" = :lq_0 OR "d"."id" = :lq_1), FALSE)');
  });

  it('goes as deep as qs allows', () => {
    let raw = 'filters';
    for (let i = 0; i < 4; i++) raw += `[$and][0][$or][0]`;
    expect(where(`${raw}[id]=5`)).toEqual({ sql: '"d"."id" = :lq_0', params: { lq_0: 5 } });
  });

  it('refuses deeper nesting than qs depth 20 as an unknown field, never an SQL error', () => {
    let raw = 'filters';
    for (let i = 0; i < 11; i++) raw += `[$and][0]`;
    const errors = errorsOf(`${raw}[id]=5`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/unknown (field|operator)/);
  });

  it('refuses overly deep parsed objects', () => {
    let f: Record<string, unknown> = { id: 1 };
    for (let i = 0; i < 40; i++) f = { $not: f };
    expect(errorsOf({ filters: f })[0]).toMatch(/nested too deeply/);
  });

  it('adds nothing for absent or empty filters', () => {
    expect(where('')).toBeNull();
    expect(where({ filters: {} })).toBeNull();
    expect(where({ filters: { $or: [] } })).toBeNull();
  });
});

describe('filters: bad input', () => {
  it.each([
    ['filters=abc', 'filters: must be an object of conditions'],
    ['filters[nope][$eq]=1', 'filters[nope]: unknown field "nope"'],
    ['filters[owner][nope]=1', 'filters[owner][nope]: unknown field "owner.nope"'],
    ['filters[title][$like]=1', 'filters[title][$like]: unknown operator "$like"'],
    ['filters[$eq]=1', 'filters[$eq]: operator $eq must follow a field name'],
    ['filters[$or]=1', 'filters[$or]: must be an array of conditions'],
    ['filters[id][$eq]=abc', 'filters[id][$eq]: expected an integer, got "abc"'],
    ['filters[id][$eq]=1.5', 'filters[id][$eq]: expected an integer, got "1.5"'],
    ['filters[id][$eq]=', 'filters[id][$eq]: expected an integer, got ""'],
    ['filters[id][$eq]=99999999999', 'filters[id][$eq]: integer "99999999999" is out of range'],
    ['filters[views][$eq]=99999999999999999999', 'filters[views][$eq]: expected an integer, got "99999999999999999999"'],
    ['filters[score][$eq]=NaN', 'filters[score][$eq]: expected a number, got "NaN"'],
    ['filters[ragEnabled][$eq]=yes', 'filters[ragEnabled][$eq]: expected true or false, got "yes"'],
    ['filters[createdAt][$gt]=yesterday', 'filters[createdAt][$gt]: expected an ISO 8601 date, got "yesterday"'],
    ['filters[createdAt][$gt]=2024-02-30', 'filters[createdAt][$gt]: expected an ISO 8601 date, got "2024-02-30"'],
    ['filters[level][$eq]=admin', 'filters[level][$eq]: expected one of system, user, got "admin"'],
    ['filters[level][$in][0]=user&filters[level][$in][1]=root', 'filters[level][$in][1]: expected one of system, user, got "root"'],
    ['filters[title][$null]=maybe', 'filters[title][$null]: expected true or false, got "maybe"'],
    ['filters[title][$null]', 'filters[title][$null]: expected true or false, got ""'],
    ['filters[title][$eq][0]=a&filters[title][$eq][1]=b', 'filters[title][$eq]: expected a single value, got an array'],
    ['filters[title][$eq][x]=a', 'filters[title][$eq]: expected a single value, got an object'],
    ['filters[title][$contains][x]=a', 'filters[title][$contains]: expected a string, got an object'],
    ['filters[id][$contains]=1', 'filters[id][$contains]: operator $contains is not supported on integer field "id"'],
    ['filters[ragEnabled][$gt]=true', 'filters[ragEnabled][$gt]: operator $gt is not supported on boolean field "ragEnabled"'],
    ['filters[level][$lt]=user', 'filters[level][$lt]: operator $lt is not supported on enum field "level"'],
    ['filters[metadata][$eq]=x', 'filters[metadata][$eq]: operator $eq is not supported on json field "metadata"'],
    ['filters[secretHash][$eq]=x', 'filters[secretHash][$eq]: field "secretHash" cannot be filtered'],
    ['filters[owner][$contains]=x', 'filters[owner][$contains]: operator $contains is not supported on integer field "owner.id"'],
  ])('%s', (raw, message) => {
    expect(errorsOf(raw)).toEqual([message]);
  });

  it('reports every problem at once', () => {
    expect(errorsOf('filters[nope]=1&filters[id][$eq]=x&filters[title][$bad]=1')).toEqual([
      'filters[nope]: unknown field "nope"',
      'filters[id][$eq]: expected an integer, got "x"',
      'filters[title][$bad]: unknown operator "$bad"',
    ]);
  });

  it('caps the number of conditions', () => {
    const spec = defineListSpec({ fields: { id: { column: 'id', type: 'integer' } }, limits: { maxConditions: 3 } });
    expect(parseListQuery('filters[id][$in][0]=1&filters[id][$in][1]=2&filters[id][$gt]=0', spec).where?.sql).toBe('(id = ANY(:lq_0) AND id > :lq_1)');
    expect(() => parseListQuery('filters[id][$in][0]=1&filters[id][$in][1]=2&filters[id][$gt]=0&filters[id][$lt]=9', spec)).toThrow(
      expect.objectContaining({ details: { errors: ['filters[id][$lt]: too many conditions (at most 3)'] } }),
    );
    const many = Array.from({ length: 201 }, (_, i) => `filters[$or][${i}][id]=${i}`).join('&');
    expect(errorsOf(many)).toEqual(['filters[$or][200][id]: too many conditions (at most 200)']);
    const inList = Array.from({ length: 201 }, (_, i) => `filters[id][$in][${i}]=${i}`).join('&');
    expect(errorsOf(inList)).toEqual(['filters[id][$in]: too many values (at most 200)']);
  });

  it('uses the given parameter prefix', () => {
    expect(parseListQuery('filters[id]=1', docSpec, { paramPrefix: 'docs' }).where).toEqual({
      sql: '"d"."id" = :docs_0',
      params: { docs_0: 1 },
    });
  });
});
