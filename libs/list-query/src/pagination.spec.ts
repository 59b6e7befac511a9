import { paginationMeta } from './pagination';
import { parseListQuery } from './parse';
import { defineListSpec } from './spec';
import { errorsOf, parse } from './test-fixture';

describe('pagination: page style', () => {
  it('defaults to page 1 of 25 with a count', () => {
    const q = parse('');
    expect(q.pagination).toEqual({ style: 'page', page: 1, pageSize: 25, withCount: true });
    expect([q.offset, q.limit]).toEqual([0, 25]);
  });

  it('computes the offset from page and pageSize', () => {
    const q = parse('pagination[page]=3&pagination[pageSize]=10');
    expect(q.pagination).toEqual({ style: 'page', page: 3, pageSize: 10, withCount: true });
    expect([q.offset, q.limit]).toEqual([20, 10]);
    expect(parse('pagination[page]=2').offset).toBe(25);
    expect(parse('pagination[pageSize]=5').pagination).toMatchObject({ page: 1, pageSize: 5 });
  });

  it('clamps pageSize to the maximum instead of rejecting it', () => {
    const q = parse('pagination[page]=2&pagination[pageSize]=500');
    expect(q.pagination).toMatchObject({ page: 2, pageSize: 100 });
    expect([q.offset, q.limit]).toEqual([100, 100]);
  });

  it('follows the spec limits', () => {
    const spec = defineListSpec({ fields: { id: { column: 'id', type: 'integer' } }, limits: { defaultPageSize: 10, maxPageSize: 20 } });
    expect(parseListQuery('', spec).limit).toBe(10);
    expect(parseListQuery('pagination[pageSize]=50', spec).limit).toBe(20);
    expect(parseListQuery('pagination[limit]=-1', spec).limit).toBe(20);
  });

  it('accepts numbers in an already parsed object', () => {
    expect(parse({ pagination: { page: 2, pageSize: 4, withCount: false } }).pagination).toEqual({
      style: 'page',
      page: 2,
      pageSize: 4,
      withCount: false,
    });
  });
});

describe('pagination: offset style', () => {
  it('takes start and limit', () => {
    const q = parse('pagination[start]=40&pagination[limit]=20');
    expect(q.pagination).toEqual({ style: 'offset', start: 40, limit: 20, withCount: true });
    expect([q.offset, q.limit]).toEqual([40, 20]);
  });

  it('defaults missing values and caps the limit; -1 means the cap', () => {
    expect(parse('pagination[start]=5').pagination).toMatchObject({ start: 5, limit: 25 });
    expect(parse('pagination[limit]=7').pagination).toMatchObject({ start: 0, limit: 7 });
    expect(parse('pagination[limit]=1000').limit).toBe(100);
    expect(parse('pagination[limit]=-1').limit).toBe(100);
  });
});

describe('pagination: withCount', () => {
  it('parses true/false/1/0', () => {
    expect(parse('pagination[withCount]=false').pagination.withCount).toBe(false);
    expect(parse('pagination[withCount]=0&pagination[start]=0').pagination.withCount).toBe(false);
    expect(parse('pagination[withCount]=1').pagination.withCount).toBe(true);
  });
});

describe('pagination: bad input', () => {
  it.each([
    ['pagination[page]=1&pagination[limit]=10', 'pagination: page/pageSize and start/limit cannot be combined'],
    ['pagination[pageSize]=1&pagination[start]=10', 'pagination: page/pageSize and start/limit cannot be combined'],
    ['pagination[page]=0', 'pagination[page]: expected an integer >= 1, got "0"'],
    ['pagination[page]=-2', 'pagination[page]: expected an integer >= 1, got "-2"'],
    ['pagination[page]=abc', 'pagination[page]: expected an integer >= 1, got "abc"'],
    ['pagination[page]=1.5', 'pagination[page]: expected an integer >= 1, got "1.5"'],
    ['pagination[page]=', 'pagination[page]: expected an integer >= 1, got ""'],
    ['pagination[page][]=1', 'pagination[page]: expected an integer >= 1, got an array'],
    ['pagination[pageSize]=0', 'pagination[pageSize]: expected an integer >= 1, got "0"'],
    ['pagination[pageSize]=ten', 'pagination[pageSize]: expected an integer >= 1, got "ten"'],
    ['pagination[start]=-1', 'pagination[start]: expected an integer >= 0, got "-1"'],
    ['pagination[start]=x', 'pagination[start]: expected an integer >= 0, got "x"'],
    ['pagination[limit]=0', 'pagination[limit]: expected an integer >= 1 or -1, got "0"'],
    ['pagination[limit]=-5', 'pagination[limit]: expected an integer >= 1 or -1, got "-5"'],
    ['pagination[withCount]=maybe', 'pagination[withCount]: expected true or false, got "maybe"'],
    ['pagination[offset]=3', 'pagination[offset]: unknown pagination parameter'],
    ['pagination=5', 'pagination: must be an object such as pagination[page]=1&pagination[pageSize]=25'],
    ['pagination[page]=99999999999999999999', 'pagination[page]: expected an integer >= 1, got "99999999999999999999"'],
    ['pagination[page]=9007199254740991&pagination[pageSize]=100', 'pagination[page]: 9007199254740991 is too large'],
  ])('%s', (raw, message) => {
    expect(errorsOf(raw)).toEqual([message]);
  });
});

describe('paginationMeta', () => {
  it('gives page, pageSize, pageCount and total for the page style', () => {
    expect(paginationMeta(parse('pagination[page]=2&pagination[pageSize]=10').pagination, 35)).toEqual({
      page: 2,
      pageSize: 10,
      pageCount: 4,
      total: 35,
    });
    expect(paginationMeta(parse('').pagination, 0)).toEqual({ page: 1, pageSize: 25, pageCount: 0, total: 0 });
    expect(paginationMeta(parse('').pagination, 25)).toMatchObject({ pageCount: 1 });
    expect(paginationMeta(parse('').pagination, 26)).toMatchObject({ pageCount: 2 });
  });

  it('gives start, limit and total for the offset style', () => {
    expect(paginationMeta(parse('pagination[start]=10&pagination[limit]=5').pagination, 12)).toEqual({ start: 10, limit: 5, total: 12 });
  });

  it('leaves the count out when withCount is false or no total is known', () => {
    expect(paginationMeta(parse('pagination[withCount]=false').pagination, 99)).toEqual({ page: 1, pageSize: 25 });
    expect(paginationMeta(parse('pagination[limit]=3&pagination[withCount]=false').pagination, 99)).toEqual({ start: 0, limit: 3 });
    expect(paginationMeta(parse('').pagination)).toEqual({ page: 1, pageSize: 25 });
  });
});
