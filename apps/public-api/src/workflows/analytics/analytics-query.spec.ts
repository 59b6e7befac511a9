import { BadRequestError } from '@docflow/service-kit';
import { parseErrorsLimit, parsePeriod } from './analytics-query';

describe('parsePeriod', () => {
  it('defaults to last_7_days when absent or empty', () => {
    expect(parsePeriod(undefined)).toEqual({ name: 'last_7_days', interval: '7 days' });
    expect(parsePeriod('')).toEqual({ name: 'last_7_days', interval: '7 days' });
  });

  it.each([
    ['last_24_hours', '24 hours'],
    ['last_7_days', '7 days'],
    ['last_30_days', '30 days'],
    ['last_90_days', '90 days'],
    ['last_14_days', '14 days'],
    ['last_1_day', '1 days'],
    ['last_2_weeks', '2 weeks'],
    ['last_12_months', '12 months'],
    ['all_time', null],
  ])('reads %s as the interval %p', (p, interval) => {
    expect(parsePeriod(p)).toEqual({ name: p, interval });
  });

  it.each([['last_year'], ['last_0_days'], ['last_07_days'], ['last_10000_days'], ['last_7_fortnights'], ['last_7_days '], ['toString'], ['__proto__'], [['last_7_days', 'all_time']], [7]])(
    'refuses %p',
    (p) => {
      expect(() => parsePeriod(p)).toThrow(BadRequestError);
    },
  );
});

describe('parseErrorsLimit', () => {
  it('defaults to 20', () => {
    expect(parseErrorsLimit(undefined)).toBe(20);
    expect(parseErrorsLimit('')).toBe(20);
  });

  it.each([
    ['1', 1],
    ['20', 20],
    ['100', 100],
    ['007', 7],
    ['101', 100],
    ['1000', 100],
  ])('reads %s as %d', (raw, n) => {
    expect(parseErrorsLimit(raw)).toBe(n);
  });

  it.each([['0'], ['-5'], ['2.5'], [' 5'], ['1e2'], ['abc'], [['5', '6']]])('refuses %p', (raw) => {
    expect(() => parseErrorsLimit(raw)).toThrow('Invalid limit');
  });
});
