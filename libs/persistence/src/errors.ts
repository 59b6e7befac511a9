import { QueryFailedError } from 'typeorm';

/**
 * The constraint a unique violation (SQLSTATE 23505) names, from TypeORM's
 * wrapper or straight from node-postgres; '' when it names none; undefined
 * for any other error.
 */
export function uniqueViolation(err: unknown): string | undefined {
  const driver = (err instanceof QueryFailedError ? err.driverError : err) as { code?: unknown; constraint?: unknown } | null;
  if (typeof driver !== 'object' || driver === null || driver.code !== '23505') return undefined;
  return typeof driver.constraint === 'string' ? driver.constraint : '';
}
