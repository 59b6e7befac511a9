import { listQueryString } from './parse';
import { applyListQuery, toPositional, type ListQueryTarget } from './sql';
import { parse } from './test-fixture';

describe('toPositional', () => {
  it('numbers named parameters in order of appearance and reuses repeated names', () => {
    expect(toPositional('a = :lq_0 AND (b = :lq_1 OR c = :lq_0)', { lq_0: 1, lq_1: 'x' })).toEqual({
      text: 'a = $1 AND (b = $2 OR c = $1)',
      values: [1, 'x'],
    });
  });

  it('starts at a given position, for SQL that already has parameters', () => {
    expect(toPositional('id = ANY(:lq_0)', { lq_0: [1, 2] }, 3)).toEqual({ text: 'id = ANY($3)', values: [[1, 2]] });
  });

  it('leaves casts, string literals and quoted identifiers alone', () => {
    const sql = `"a:b"::text LIKE :p ESCAPE '\\' AND x = ':p' AND y = 'it''s :p'`;
    expect(toPositional(sql, { p: 'v' })).toEqual({ text: `"a:b"::text LIKE $1 ESCAPE '\\' AND x = ':p' AND y = 'it''s :p'`, values: ['v'] });
  });

  it('throws on a placeholder without a value', () => {
    expect(() => toPositional('a = :missing', {})).toThrow('no value for :missing');
    expect(() => toPositional('a = :toString', {})).toThrow('no value for :toString');
  });

  it('converts a whole parsed filter', () => {
    const w = parse('filters[$or][0][title][$containsi]=a&filters[$or][1][id][$in][0]=3').where;
    expect(w && toPositional(w.sql, w.params)).toEqual({
      text: `("d"."title" ILIKE $1 ESCAPE '\\' OR "d"."id" = ANY($2))`,
      values: ['%a%', [3]],
    });
  });
});

describe('listQueryString', () => {
  it('takes the part after ? and before #', () => {
    expect(listQueryString('/api/documents?filters[id]=1&sort=title')).toBe('filters[id]=1&sort=title');
    expect(listQueryString('/api/documents?a=1#frag')).toBe('a=1');
    expect(listQueryString('/api/documents?a=b?c')).toBe('a=b?c');
    expect(listQueryString('/api/documents')).toBe('');
  });
});

describe('applyListQuery', () => {
  class FakeBuilder implements ListQueryTarget<FakeBuilder> {
    calls: unknown[][] = [];
    andWhere(where: string, parameters?: Record<string, unknown>): FakeBuilder {
      this.calls.push(['andWhere', where, parameters]);
      return this;
    }
    addOrderBy(sort: string, order?: 'ASC' | 'DESC'): FakeBuilder {
      this.calls.push(['addOrderBy', sort, order]);
      return this;
    }
    offset(offset?: number): FakeBuilder {
      this.calls.push(['offset', offset]);
      return this;
    }
    limit(limit?: number): FakeBuilder {
      this.calls.push(['limit', limit]);
      return this;
    }
  }

  it('adds where, order and window', () => {
    const qb = applyListQuery(new FakeBuilder(), parse('filters[id][$gt]=2&sort=title&pagination[page]=2&pagination[pageSize]=5'));
    expect(qb.calls).toEqual([
      ['andWhere', '"d"."id" > :lq_0', { lq_0: 2 }],
      ['addOrderBy', '"d"."title"', 'ASC'],
      ['addOrderBy', '"d"."id"', 'ASC'],
      ['offset', 5],
      ['limit', 5],
    ]);
  });

  it('adds no where clause without filters', () => {
    const qb = applyListQuery(new FakeBuilder(), parse(''));
    expect(qb.calls.map((c) => c[0])).toEqual(['addOrderBy', 'addOrderBy', 'offset', 'limit']);
  });
});
