import { BadRequestError } from '@docflow/service-kit';

/** The windows GET /workflows/metrics/overview accepts (spec 4.7), as PostgreSQL intervals; `all_time` has none. */
export const ANALYTICS_PERIODS = {
  last_24_hours: '24 hours',
  last_7_days: '7 days',
  last_30_days: '30 days',
  last_90_days: '90 days',
  all_time: null,
} as const satisfies Record<string, string | null>;

export type AnalyticsPeriod = keyof typeof ANALYTICS_PERIODS;

export const DEFAULT_PERIOD: AnalyticsPeriod = 'last_7_days';
export const PERIOD_NAMES = Object.keys(ANALYTICS_PERIODS) as AnalyticsPeriod[];

export const DEFAULT_ERRORS_LIMIT = 20;
export const MAX_ERRORS_LIMIT = 100;

function isPeriod(value: string): value is AnalyticsPeriod {
  return Object.prototype.hasOwnProperty.call(ANALYTICS_PERIODS, value);
}

/** `?period=`: absent or empty means the default; anything else not in the list (or given twice) is a 400. */
export function parsePeriod(raw: unknown): AnalyticsPeriod {
  if (raw === undefined || raw === '') return DEFAULT_PERIOD;
  if (typeof raw === 'string' && isPeriod(raw)) return raw;
  throw BadRequestError.withErrors('Invalid period', [`period must be one of ${PERIOD_NAMES.join(', ')}`]);
}

/** `?limit=`: absent or empty means 20; otherwise an integer from 1 to 100, else a 400 (never clamped silently). */
export function parseErrorsLimit(raw: unknown): number {
  if (raw === undefined || raw === '') return DEFAULT_ERRORS_LIMIT;
  if (typeof raw === 'string' && /^\d{1,4}$/.test(raw)) {
    const n = Number(raw);
    if (n >= 1 && n <= MAX_ERRORS_LIMIT) return n;
  }
  throw BadRequestError.withErrors('Invalid limit', [`limit must be an integer from 1 to ${MAX_ERRORS_LIMIT}`]);
}
