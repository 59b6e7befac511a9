import { asList, castValue, escapeLike, normalizeIsoDate } from './values';
import type { ResolvedField } from './spec';

const field = (type: ResolvedField['type'], enumValues: string[] = []): ResolvedField => ({
  name: 'f',
  column: 'f',
  type,
  enumValues,
  filterable: true,
  sortable: true,
});

describe('normalizeIsoDate', () => {
  it.each([
    ['2024-01-02', '2024-01-02T00:00:00Z'],
    ['2024-01-02T03:04', '2024-01-02T03:04:00Z'],
    ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z'],
    ['2024-01-02T03:04:05.123456Z', '2024-01-02T03:04:05.123456Z'],
    ['2024-01-02 03:04:05', '2024-01-02T03:04:05Z'],
    ['2024-01-02T03:04:05+02:00', '2024-01-02T01:04:05Z'],
    ['2024-01-02T03:04:05 02:00', '2024-01-02T01:04:05Z'],
    ['2024-01-02T23:30:00-01:00', '2024-01-03T00:30:00Z'],
    ['2024-01-02T03:04:05+0530', '2024-01-01T21:34:05Z'],
    ['2024-02-29', '2024-02-29T00:00:00Z'],
    ['0050-06-01', '0050-06-01T00:00:00Z'],
  ])('%s -> %s', (input, output) => {
    expect(normalizeIsoDate(input)).toBe(output);
  });

  it.each([
    '2023-02-29',
    '2024-13-01',
    '2024-00-10',
    '2024-01-32',
    '2024-01-02T24:00',
    '2024-01-02T10:60',
    '2024-01-02T10:00:00+25:00',
    '0000-01-01',
    '0001-01-01T00:00:00+01:00',
    '24-01-02',
    '2024-1-2',
    'yesterday',
    '2024-01-02T03:04:05Zjunk',
    '1e3',
    '',
  ])('refuses %s', (input) => {
    expect(normalizeIsoDate(input)).toBeUndefined();
  });
});

describe('castValue', () => {
  it('casts by type', () => {
    expect(castValue(field('integer'), '-12')).toEqual({ ok: true, value: -12 });
    expect(castValue(field('integer'), 7)).toEqual({ ok: true, value: 7 });
    expect(castValue(field('integer'), '2147483648')).toEqual({ ok: false, error: 'integer "2147483648" is out of range' });
    expect(castValue(field('bigint'), '2147483648')).toEqual({ ok: true, value: 2147483648 });
    expect(castValue(field('number'), '1.5e2')).toEqual({ ok: true, value: 150 });
    expect(castValue(field('number'), 'Infinity').ok).toBe(false);
    expect(castValue(field('number'), '0x10').ok).toBe(false);
    expect(castValue(field('boolean'), 'true')).toEqual({ ok: true, value: true });
    expect(castValue(field('boolean'), 'TRUE').ok).toBe(false);
    expect(castValue(field('enum', ['a', 'b']), 'b')).toEqual({ ok: true, value: 'b' });
    expect(castValue(field('enum', ['a', 'b']), 'B').ok).toBe(false);
    expect(castValue(field('string'), 12)).toEqual({ ok: true, value: '12' });
    expect(castValue(field('string'), true).ok).toBe(false);
    expect(castValue(field('date'), 20240101).ok).toBe(false);
    expect(castValue(field('json'), '{}').ok).toBe(false);
  });
});

describe('escapeLike and asList', () => {
  it('escapes LIKE metacharacters', () => {
    expect(escapeLike('a%b_c\\d')).toBe('a\\%b\\_c\\\\d');
  });

  it('reads index objects in index order and refuses other objects', () => {
    expect(asList({ '10': 'c', '2': 'b', '0': 'a' })).toEqual(['a', 'b', 'c']);
    expect(asList({ '0': 'a', x: 'b' })).toBeUndefined();
    expect(asList({ '01': 'a' })).toBeUndefined();
    expect(asList({})).toBeUndefined();
    expect(asList('a')).toBeUndefined();
  });
});
