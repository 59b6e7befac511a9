import type { PublicApiDatabase } from '../../platform';
import { RevokedTokensRepository } from './revoked-tokens.repository';
import { StepUpRepository } from './step-up.repository';

/** Deletes revocations of tokens that have expired anyway, and expired step-up codes and grants. */
export async function purgeExpiredAuthRecords(database: PublicApiDatabase): Promise<{ revocations: number; stepUp: number }> {
  const revocations = await new RevokedTokensRepository(database).purgeExpired();
  const stepUp = await new StepUpRepository(database).purgeExpired();
  return { revocations, stepUp };
}
