import { CronExpressionParser } from 'cron-parser';
import { errorMessage } from '@docflow/service-kit';

/** Whether `tz` is an IANA time zone this runtime knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A problem with a standard 5-field cron expression (minute hour day-of-month month day-of-week), or undefined. */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return `cron_expression: needs the 5 standard fields (minute hour day-of-month month day-of-week), got ${fields.length}`;
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC' }).next();
    return undefined;
  } catch (err) {
    return `cron_expression: ${errorMessage(err)}`;
  }
}

/** The first time strictly after `after` that the expression names, in `tz`. */
export function nextRun(expression: string, tz: string, after: Date): Date {
  return CronExpressionParser.parse(expression, { tz, currentDate: after }).next().toDate();
}
