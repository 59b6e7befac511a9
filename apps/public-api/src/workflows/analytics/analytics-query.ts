import { BadRequestError } from '@docflow/service-kit';

/** A window of GET /workflows/metrics/overview: its name as asked and echoed, and a PostgreSQL interval (null: all time). */
export interface AnalyticsPeriod {
  name: string;
  interval: string | null;
}

/** The periods listed in the API description; any `last_<n>_<unit>` is read too. */
export const PERIOD_NAMES = ['last_24_hours', 'last_7_days', 'last_30_days', 'last_90_days', 'all_time'] as const;

export const DEFAULT_PERIOD = 'last_7_days';

/** `last_<n>_<unit>`: n from 1 to 9999, unit hour, day, week or month (singular or plural). */
const RELATIVE_PERIOD = /^last_([1-9]\d{0,3})_(hour|day|week|month)s?$/;

export const PERIOD_RULE = `period must be all_time or last_<n>_<hours|days|weeks|months> (for example ${PERIOD_NAMES.join(', ')})`;

export const DEFAULT_ERRORS_LIMIT = 20;
export const MAX_ERRORS_LIMIT = 100;

/**
 * `?period=`: absent or empty means last_7_days. The spec gives only
 * `last_7_days` as an example, so every `last_<n>_<unit>` is understood;
 * anything else (or the parameter given twice) is a 400.
 */
export function parsePeriod(raw: unknown): AnalyticsPeriod {
  if (raw === undefined || raw === '') return parsePeriod(DEFAULT_PERIOD);
  if (raw === 'all_time') return { name: raw, interval: null };
  const m = typeof raw === 'string' ? RELATIVE_PERIOD.exec(raw) : null;
  if (typeof raw === 'string' && m) return { name: raw, interval: `${m[1]} ${m[2]}s` };
  throw BadRequestError.withErrors('Invalid period', [PERIOD_RULE]);
}

/**
 * `?limit=`: absent or empty means 20; a positive integer, of which at most
 * 100 are served (a larger one is clamped, as list page sizes are); zero,
 * negatives and non-integers are a 400.
 */
export function parseErrorsLimit(raw: unknown): number {
  if (raw === undefined || raw === '') return DEFAULT_ERRORS_LIMIT;
  if (typeof raw === 'string' && /^\d{1,15}$/.test(raw)) {
    const n = Number(raw);
    if (n >= 1) return Math.min(n, MAX_ERRORS_LIMIT);
  }
  throw BadRequestError.withErrors('Invalid limit', ['limit must be a positive integer (at most 100 errors are listed)']);
}
