/**
 * Runs the SQL that parseListQuery generates against a real PostgreSQL
 * table, one database of its own, and checks which rows come back.
 */
// The boundary rule has no exception for test files yet; integration specs need @docflow/testing.
import { createTestDatabase, type TestDatabase } from '@docflow/testing';
import { Client } from 'pg';
import { paginationMeta } from './pagination';
import { parseListQuery } from './parse';
import { defineListSpec } from './spec';
import { toPositional } from './sql';

const spec = defineListSpec({
  fields: {
    id: { column: '"d"."id"', type: 'integer' },
    title: { column: '"d"."title"', type: 'string' },
    score: { column: '"d"."score"', type: 'number' },
    views: { column: '"d"."views"', type: 'bigint' },
    createdAt: { column: '"d"."created_at"', type: 'date' },
    'owner.id': { column: '"d"."owner_id"', type: 'integer' },
    'owner.username': { column: '"o"."username"', type: 'string' },
    level: { column: '"d"."level"', type: 'enum', values: ['system', 'user'] },
    ragEnabled: { column: '"d"."rag_enabled"', type: 'boolean' },
    metadata: { column: '"d"."metadata"', type: 'json' },
  },
  relations: ['owner'],
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
});

let db: TestDatabase;
let client: Client;

beforeAll(async () => {
  db = await createTestDatabase('list_query');
  client = new Client({ connectionString: db.url });
  await client.connect();
  await client.query(`
    CREATE TYPE doc_level AS ENUM ('system', 'user');
    CREATE TABLE owners (id integer PRIMARY KEY, username text NOT NULL);
    CREATE TABLE documents (
      id integer PRIMARY KEY,
      title varchar(200),
      score numeric,
      views bigint,
      created_at timestamptz,
      owner_id integer REFERENCES owners(id),
      level doc_level,
      rag_enabled boolean,
      metadata json
    );
    INSERT INTO owners VALUES (1, 'alice'), (2, 'bob');
  `);
  const rows: unknown[][] = [
    [1, 'Annual Report', 1.5, 10, '2024-01-01T00:00:00Z', 1, 'system', true, '{"a":1}'],
    [2, 'annual budget', 2.5, 20, '2024-01-15T12:00:00Z', 2, 'user', false, null],
    [3, '50% off_sale\\x', null, 30, '2024-02-01T00:00:00Z', 1, 'user', null, '{}'],
    [4, null, 10, 5000000000, '2024-03-01T00:00:00Z', null, null, true, null],
    [5, 'Report', -1, 0, null, 2, 'system', false, '{"b":2}'],
    [6, "x' OR 1=1 --", 0, 1, '2024-04-01T00:00:00Z', 1, 'user', false, null],
  ];
  for (const row of rows) {
    await client.query('INSERT INTO documents VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)', row);
  }
});

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

/** Runs the list query the way a repository would and returns the ids, in order. */
async function ids(raw: string, scopeOwner?: number): Promise<number[]> {
  const q = parseListQuery(raw, spec);
  const scope = scopeOwner === undefined ? [] : [scopeOwner];
  const where = q.where ? toPositional(q.where.sql, q.where.params, scope.length + 1) : { text: 'TRUE', values: [] };
  const values = [...scope, ...where.values, q.limit, q.offset];
  const order = q.orderBy.map((o) => `${o.column} ${o.direction}`).join(', ');
  const n = values.length;
  const sql =
    `SELECT d.id FROM documents d LEFT JOIN owners o ON o.id = d.owner_id ` +
    `WHERE ${scopeOwner === undefined ? '' : 'd.owner_id = $1 AND '}${where.text} ORDER BY ${order} LIMIT $${n - 1} OFFSET $${n}`;
  const res = await client.query<{ id: number }>(sql, values);
  return res.rows.map((r) => r.id);
}

const byId = (filters: string) => ids(`${filters}&sort=id&pagination[limit]=-1`);

describe('generated SQL against PostgreSQL', () => {
  it.each<[string, number[]]>([
    ['filters[title][$eq]=Report', [5]],
    ['filters[title]=Report', [5]],
    ['filters[title][$eqi]=rEPORT', [5]],
    ['filters[title][$ne]=Report', [1, 2, 3, 4, 6]],
    ['filters[title][$nei]=REPORT', [1, 2, 3, 4, 6]],
    ['filters[id][$lt]=3', [1, 2]],
    ['filters[id][$lte]=3', [1, 2, 3]],
    ['filters[id][$gt]=4', [5, 6]],
    ['filters[id][$gte]=5', [5, 6]],
    ['filters[score][$gt]=2', [2, 4]],
    ['filters[score][$lte]=0', [5, 6]],
    ['filters[views][$gt]=2147483647', [4]],
    ['filters[createdAt][$gte]=2024-01-15T12:00:00Z', [2, 3, 4, 6]],
    ['filters[createdAt][$lt]=2024-01-15T13:00:00%2B02:00', [1]],
    ['filters[createdAt][$lt]=2024-01-15T13:00:00+02:00', [1]],
    ['filters[createdAt][$between][0]=2024-01-01&filters[createdAt][$between][1]=2024-02-01', [1, 2, 3]],
    ['filters[id][$between][0]=2&filters[id][$between][1]=4', [2, 3, 4]],
    ['filters[id][$in][0]=1&filters[id][$in][1]=3&filters[id][$in][2]=99', [1, 3]],
    ['filters[id][0]=2&filters[id][1]=4', [2, 4]],
    ['filters[id][$notIn][0]=1&filters[id][$notIn][1]=2', [3, 4, 5, 6]],
    ['filters[level][$in][0]=user', [2, 3, 6]],
    ['filters[level][$notIn][0]=system', [2, 3, 4, 6]],
    ['filters[level][$eq]=system', [1, 5]],
    ['filters[level][$ne]=system', [2, 3, 4, 6]],
    ['filters[level][$eqi]=USER', [2, 3, 6]],
    ['filters[level][$containsi]=SYS', [1, 5]],
    ['filters[createdAt][$in][0]=2024-01-01&filters[createdAt][$in][1]=2024-04-01T00:00:00Z', [1, 6]],
    ['filters[title][$contains]=nnual', [1, 2]],
    ['filters[title][$contains]=Report', [1, 5]],
    ['filters[title][$containsi]=REPORT', [1, 5]],
    ['filters[title][$notContains]=nnual', [3, 4, 5, 6]],
    ['filters[title][$notContainsi]=ANNUAL', [3, 4, 5, 6]],
    ['filters[title][$startsWith]=annual', [2]],
    ['filters[title][$startsWithi]=annual', [1, 2]],
    ['filters[title][$endsWith]=Report', [1, 5]],
    ['filters[title][$endsWithi]=BUDGET', [2]],
    ['filters[title][$contains]=%25', [3]],
    ['filters[title][$contains]=_', [3]],
    ['filters[title][$contains]=%5C', [3]],
    ['filters[title][$startsWith]=50%25', [3]],
    ['filters[title][$endsWith]=_sale%5Cx', [3]],
    ['filters[title][$null]=true', [4]],
    ['filters[title][$null]=false', [1, 2, 3, 5, 6]],
    ['filters[title][$notNull]=true', [1, 2, 3, 5, 6]],
    ['filters[title][$notNull]=false', [4]],
    ['filters[metadata][$null]=true', [2, 4, 6]],
    ['filters[metadata][$notNull]=true', [1, 3, 5]],
    ['filters[ragEnabled][$eq]=true', [1, 4]],
    ['filters[ragEnabled][$ne]=true', [2, 3, 5, 6]],
    ['filters[ragEnabled][$in][0]=0', [2, 5, 6]],
    ['filters[owner][id][$eq]=1', [1, 3, 6]],
    ['filters[owner]=2', [2, 5]],
    ['filters[owner][id][$null]=true', [4]],
    ['filters[owner][username][$eqi]=ALICE', [1, 3, 6]],
    ['filters[$or][0][title][$eq]=Report&filters[$or][1][id][$eq]=1', [1, 5]],
    ['filters[$and][0][id][$gt]=1&filters[$and][1][level][$eq]=user', [2, 3, 6]],
    ['filters[$not][title][$contains]=nnual', [3, 4, 5, 6]],
    ['filters[$not][$or][0][id]=1&filters[$not][$or][1][ragEnabled]=true', [2, 3, 5, 6]],
    ['filters[title][$or][0][$startsWith]=Ann&filters[title][$or][1][$endsWith]=--', [1, 6]],
    ['filters[$or][0][$and][0][owner][id]=1&filters[$or][0][$and][1][level]=user&filters[$or][1][score][$lt]=0', [3, 5, 6]],
    [`filters[title][$eq]=${encodeURIComponent("x' OR 1=1 --")}`, [6]],
    [`filters[title][$contains]=${encodeURIComponent("' OR '1'='1")}`, []],
  ])('%s', async (raw, expected) => {
    expect(await byId(raw)).toEqual(expected);
  });

  it('stays inside a scope ANDed in front of a top-level OR', async () => {
    expect(await ids('filters[$or][0][title][$eq]=Report&filters[$or][1][id][$eq]=1&sort=id', 1)).toEqual([1]);
  });

  it('sorts with the default order and a stable id tiebreaker', async () => {
    expect(await ids('')).toEqual([5, 6, 4, 3, 2, 1]);
    expect(await ids('sort=ragEnabled:desc')).toEqual([3, 4, 1, 6, 5, 2]);
    expect(await ids('sort[0]=level:asc&sort[1]=title:desc')).toEqual([5, 1, 6, 2, 3, 4]);
  });

  it('pages with both styles and counts the total', async () => {
    const raw = 'filters[id][$gt]=1&sort=id&pagination[page]=2&pagination[pageSize]=2';
    expect(await ids(raw)).toEqual([4, 5]);
    const q = parseListQuery(raw, spec);
    const w = q.where ? toPositional(q.where.sql, q.where.params) : { text: 'TRUE', values: [] };
    const total = await client.query<{ n: string }>(`SELECT count(*) AS n FROM documents d WHERE ${w.text}`, w.values);
    expect(paginationMeta(q.pagination, Number(total.rows[0]?.n))).toEqual({ page: 2, pageSize: 2, pageCount: 3, total: 5 });
    expect(await ids('sort=id&pagination[start]=4&pagination[limit]=10')).toEqual([5, 6]);
    expect(await ids('sort=id&pagination[page]=4&pagination[pageSize]=2')).toEqual([]);
  });
});
