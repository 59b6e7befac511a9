import { parseListQuery } from './parse';
import { docSpec, errorsOf, parse } from './test-fixture';

const order = (raw: string | Record<string, unknown>) => parse(raw).orderBy.map((o) => `${o.field}:${o.direction}`);

describe('sort', () => {
  it('uses the default sort plus the id tiebreaker when none is given', () => {
    expect(parse('').orderBy).toEqual([
      { field: 'createdAt', column: '"d"."created_at"', direction: 'DESC' },
      { field: 'id', column: '"d"."id"', direction: 'DESC' },
    ]);
    expect(order('sort=')).toEqual(['createdAt:DESC', 'id:DESC']);
  });

  it.each([
    ['sort=title', ['title:ASC', 'id:ASC']],
    ['sort=title:asc', ['title:ASC', 'id:ASC']],
    ['sort=createdAt:DESC', ['createdAt:DESC', 'id:DESC']],
    ['sort=title:desc,createdAt', ['title:DESC', 'createdAt:ASC', 'id:ASC']],
    ['sort=title:asc, id:desc', ['title:ASC', 'id:DESC']],
    ['sort[0]=title:asc&sort[1]=id:desc', ['title:ASC', 'id:DESC']],
    ['sort[]=level&sort[]=score:desc', ['level:ASC', 'score:DESC', 'id:DESC']],
    ['sort=title&sort=score', ['title:ASC', 'score:ASC', 'id:ASC']],
    ['sort[title]=desc', ['title:DESC', 'id:DESC']],
    ['sort[0][title]=asc&sort[1][createdAt]=desc', ['title:ASC', 'createdAt:DESC', 'id:DESC']],
    ['sort=owner.id:desc', ['owner.id:DESC', 'id:DESC']],
    ['sort[owner][username]=asc', ['owner.username:ASC', 'id:ASC']],
    ['sort=title,title:desc', ['title:ASC', 'id:ASC']],
    ['sort=id:desc,title', ['id:DESC', 'title:ASC']],
  ])('%s', (raw, expected) => {
    expect(order(raw)).toEqual(expected);
  });

  it('carries the column from the spec', () => {
    expect(parse('sort=owner.username').orderBy[0]).toEqual({ field: 'owner.username', column: '"o"."username"', direction: 'ASC' });
  });

  it.each([
    ['sort=nope', 'sort: "nope" is not a sortable field'],
    ['sort=title:up', 'sort: invalid direction "up" for "title" (use asc or desc)'],
    ['sort=title:asc:x', 'sort: invalid sort "title:asc:x"'],
    ['sort[1]=metadata', 'sort[0]: "metadata" is not a sortable field'],
    ['sort=secretHash', 'sort: "secretHash" is not a sortable field'],
    ['sort=title%3B%20DROP%20TABLE%20x', 'sort: "title; DROP TABLE x" is not a sortable field'],
    ['sort[title]=sideways', 'sort[title]: invalid direction "sideways" for "title" (use asc or desc)'],
    ['sort[title][]=asc', 'sort[title]: expected asc or desc, got an array'],
  ])('%s is refused', (raw, message) => {
    expect(errorsOf(raw)).toEqual([message]);
  });

  it('caps the number of sort fields', () => {
    expect(errorsOf(`sort=${Array(11).fill('title').join(',')}`)).toEqual(['sort: too many sort fields (at most 10)']);
  });
});

describe('populate', () => {
  it.each([
    ['', []],
    ['populate=', []],
    ['populate=*', ['owner', 'documents']],
    ['populate=owner', ['owner']],
    ['populate=documents,owner', ['documents', 'owner']],
    ['populate=owner,owner', ['owner']],
    ['populate[0]=documents&populate[1]=owner', ['documents', 'owner']],
    ['populate[]=owner', ['owner']],
    ['populate[0]=*', ['owner', 'documents']],
    ['populate[owner]=true', ['owner']],
    ['populate[owner]=true&populate[documents]=false', ['owner']],
    ['populate[owner][populate]=*', ['owner']],
    ['populate[owner][fields][0]=username&populate[documents]=1', ['owner', 'documents']],
  ])('%s', (raw, expected) => {
    expect(parse(raw).populate).toEqual(expected);
  });

  it.each([
    ['populate=nope', 'populate: unknown relation "nope"'],
    ['populate=owner,nope', 'populate: unknown relation "nope"'],
    ['populate[0]=owner&populate[1]=secrets', 'populate: unknown relation "secrets"'],
    ['populate[nope]=true', 'populate: unknown relation "nope"'],
    ['populate[owner]=sometimes', 'populate[owner]: expected true, false or an object, got "sometimes"'],
    ['populate[0][owner]=true', 'populate[0]: expected a relation name, got an object'],
  ])('%s is refused', (raw, message) => {
    expect(errorsOf(raw)).toEqual([message]);
  });
});

describe('parseListQuery as a whole', () => {
  it('collects problems from every parameter into one error', () => {
    expect(errorsOf('pagination[page]=0&sort=nope&populate=nope&filters[nope]=1')).toEqual([
      'pagination[page]: expected an integer >= 1, got "0"',
      'sort: "nope" is not a sortable field',
      'populate: unknown relation "nope"',
      'filters[nope]: unknown field "nope"',
    ]);
  });

  it('accepts a leading ?, ignores other parameters and decodes + as a space', () => {
    const q = parse('?locale=en&fields[0]=title&filters[title]=a+b');
    expect(q.where).toEqual({ sql: '"d"."title" = :lq_0', params: { lq_0: 'a b' } });
  });

  it('refuses more parameters than qs would keep instead of silently dropping some', () => {
    const raw = Array.from({ length: 1001 }, (_, i) => `x${i}=1`).join('&');
    expect(errorsOf(raw)).toEqual(['query: too many parameters (at most 1000)']);
  });

  it('reads URLSearchParams', () => {
    const params = new URLSearchParams({ 'filters[id][$in][0]': '4', 'pagination[limit]': '2', sort: 'title:desc' });
    const q = parseListQuery(params, docSpec);
    expect(q.where).toEqual({ sql: '"d"."id" = ANY(:lq_0)', params: { lq_0: [4] } });
    expect([q.offset, q.limit, q.orderBy[0]?.direction]).toEqual([0, 2, 'DESC']);
  });

  it('leaves prototype keys alone', () => {
    const q = parse('filters[__proto__][id]=1&filters[constructor][$eq]=1&filters[id]=2');
    expect(q.where).toEqual({ sql: '"d"."id" = :lq_0', params: { lq_0: 2 } });
    expect(errorsOf({ filters: { constructor: { $eq: 1 } } })).toEqual(['filters[constructor]: unknown field "constructor"']);
    expect(errorsOf({ filters: { toString: 1 } })).toEqual(['filters[toString]: unknown field "toString"']);
  });
});
