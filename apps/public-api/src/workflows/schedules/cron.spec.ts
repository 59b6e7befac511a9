import { cronProblem, isTimeZone, nextRun } from './cron';

describe('schedule cron expressions', () => {
  it('takes the 5 standard fields and names what is wrong otherwise', () => {
    expect(cronProblem('*/5 * * * *')).toBeUndefined();
    expect(cronProblem('0 9 * * MON-FRI')).toBeUndefined();
    expect(cronProblem('* * * * * *')).toMatch(/5 standard fields.*got 6/);
    expect(cronProblem('61 * * * *')).toMatch(/^cron_expression: /);
  });

  it('finds the next run in the schedule’s time zone', () => {
    const after = new Date('2026-11-26T04:31:10Z');
    expect(nextRun('*/5 * * * *', 'UTC', after).toISOString()).toBe('2026-11-26T04:35:00.000Z');
    // 09:00 in Paris is 08:00 UTC in November (CET).
    expect(nextRun('0 9 * * *', 'Europe/Paris', after).toISOString()).toBe('2026-11-26T08:00:00.000Z');
    expect(nextRun('0 9 * * *', 'America/New_York', after).toISOString()).toBe('2026-11-26T14:00:00.000Z');
  });

  it('knows IANA time zones', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Base')).toBe(false);
  });
});
