import type { Logger } from '@docflow/service-kit';
import type { PublicApiDatabase } from '../data-source';
import { RevokedTokensRepository } from './revoked-tokens.repository';
import { StepUpRepository } from './step-up.repository';

/** Deletes revocations of tokens that have expired anyway, and expired step-up codes and grants. */
export async function purgeExpiredAuthRecords(database: PublicApiDatabase): Promise<{ revocations: number; stepUp: number }> {
  const revocations = await new RevokedTokensRepository(database).purgeExpired();
  const stepUp = await new StepUpRepository(database).purgeExpired();
  return { revocations, stepUp };
}

/** Runs the purge now and then; `stop()` waits for a run in progress. Safe with replicas (plain deletes). */
export function startAuthHousekeeping(database: PublicApiDatabase, logger: Logger, intervalMs = 10 * 60_000): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = purgeExpiredAuthRecords(database).then(
      (purged) => {
        if (purged.revocations || purged.stepUp) logger.debug('expired auth records purged', purged);
      },
      (err: unknown) => logger.warn('purging expired auth records failed', { error: err instanceof Error ? err.message : String(err) }),
    );
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  run();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
