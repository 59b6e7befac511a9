import { startPeriodic } from '@docflow/persistence';
import type { StorageDriver } from '@docflow/storage';
import { errorMessage, type Logger } from '@docflow/service-kit';
import { bindFeature, type MountableFeature, type PlatformServices } from '../../platform';
import type { AuditLog } from '../audit/audit-log';
import type { AuthGuards } from '../auth/guards';
import { AccountDeletionsService } from './account-deletions.service';
import { DataExportsService, type GdprSignedUrls } from './data-exports.service';
import { createGdprFeature } from './gdpr.feature';
import { GdprRepository } from './gdpr.repository';
import type { UserDataHolder } from './user-data';

const DAY_SECONDS = 86_400;

export interface GdprModuleDeps extends Pick<PlatformServices, 'config' | 'database' | 'logger' | 'openapi'> {
  auth: AuthGuards;
  audit: AuditLog;
  /** The documents' storage driver: archives are stored beside the files. */
  storage: StorageDriver;
  signedUrls: GdprSignedUrls;
  /**
   * Every other module's part (from its index), in the order an account
   * deletion purges them; identity's own (the account, credentials, audit
   * rows, exports) is added here: first in an export, last in a deletion.
   */
  holders: readonly UserDataHolder[];
}

export interface GdprModule {
  feature: MountableFeature;
  exports: DataExportsService;
  deletions: AccountDeletionsService;
  /** One round of the workers role: pending exports built, due deletions run. */
  tick(now?: Date): Promise<{ exportsBuilt: number; accountsDeleted: number }>;
  /** Runs `tick` every intervalMs, one round at a time (workers role); `stop` waits for a round in progress. */
  start(intervalMs: number): { stop(): Promise<void> };
}

/** Identity's own part: the account, its credentials' names and its audit rows; deleting it removes the account last. */
function identityHolder(repo: GdprRepository, exports: () => DataExportsService): UserDataHolder {
  return {
    service: 'identity',
    async exportUser(userId) {
      const copy = await repo.accountCopy(userId);
      return { sections: { account: copy.account, credentials: copy.credentials, audit_log: copy.auditRows, quotas: copy.quotas, quota_periods: copy.quotaPeriods } };
    },
    async purgeUser(userId) {
      const dataExports = await exports().purgeUser(userId);
      return { dataExports, ...(await repo.deleteAccount(userId)) };
    },
  };
}

/** Data export and account deletion (issue #18 items 1 and 2), over the other modules' UserDataHolders. */
export function createGdprModule(deps: GdprModuleDeps): GdprModule {
  const repo = new GdprRepository(deps.database);
  const logger: Logger = deps.logger.child({ component: 'gdpr' });
  const own = identityHolder(repo, () => exports);
  const exports: DataExportsService = new DataExportsService({
    repo,
    storage: deps.storage,
    audit: deps.audit,
    logger,
    signedUrls: deps.signedUrls,
    holders: () => [own, ...deps.holders],
    retentionSeconds: deps.config.DATA_EXPORT_RETENTION_DAYS * DAY_SECONDS,
  });
  const deletions = new AccountDeletionsService({
    repo,
    audit: deps.audit,
    logger,
    holders: () => [...deps.holders, own],
    graceSeconds: deps.config.ACCOUNT_DELETION_GRACE_SECONDS,
  });
  const tick = async (now?: Date) => ({ exportsBuilt: await exports.buildPending(), accountsDeleted: await deletions.runDue(now) });
  return {
    feature: bindFeature(createGdprFeature({ exports, deletions }), { openapi: deps.openapi, auth: deps.auth, logger }),
    exports,
    deletions,
    tick,
    start(intervalMs) {
      return startPeriodic(async () => {
        await tick().catch((err: unknown) => logger.warn('gdpr round failed', { error: errorMessage(err) }));
      }, intervalMs);
    },
  };
}
