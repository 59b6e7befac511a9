import { BadRequestError } from '@docflow/service-kit';
import { parseErrorsLimit, parsePeriod } from './analytics-query';

describe('parsePeriod', () => {
  it('defaults to last_7_days when absent or empty', () => {
    expect(parsePeriod(undefined)).toBe('last_7_days');
    expect(parsePeriod('')).toBe('last_7_days');
  });

  it.each(['last_24_hours', 'last_7_days', 'last_30_days', 'last_90_days', 'all_time'])('accepts %s', (p) => {
    expect(parsePeriod(p)).toBe(p);
  });

  it.each([['last_year'], ['toString'], ['__proto__'], [['last_7_days', 'all_time']], [7]])('refuses %p', (p) => {
    expect(() => parsePeriod(p)).toThrow(BadRequestError);
  });
});

describe('parseErrorsLimit', () => {
  it('defaults to 20', () => {
    expect(parseErrorsLimit(undefined)).toBe(20);
    expect(parseErrorsLimit('')).toBe(20);
  });

  it.each([['1', 1], ['20', 20], ['100', 100], ['007', 7]])('reads %s as %d', (raw, n) => {
    expect(parseErrorsLimit(raw)).toBe(n);
  });

  it.each([['0'], ['101'], ['1000'], ['-5'], ['2.5'], [' 5'], ['1e2'], [['5', '6']]])('refuses %p', (raw) => {
    expect(() => parseErrorsLimit(raw)).toThrow('Invalid limit');
  });
});
