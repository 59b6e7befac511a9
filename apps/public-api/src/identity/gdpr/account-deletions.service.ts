import { errorMessage, type Logger, NotFoundError } from '@docflow/service-kit';
import type { AuditLog } from '../audit/audit-log';
import type { DeletionRecord, GdprRepository } from './gdpr.repository';
import type { RemovedCounts, UserDataHolder } from './user-data';

/** GET /users/me/deletion: the pending deletion and when it runs. */
export interface DeletionView {
  id: number;
  status: DeletionRecord['status'] | 'cancelled';
  requested_at: string;
  scheduled_for: string;
}

export interface AccountDeletionsDeps {
  repo: GdprRepository;
  audit: AuditLog;
  logger: Logger;
  /** Every module's part, in the order they are purged: identity's (exports, credentials, the account) last. */
  holders: () => readonly UserDataHolder[];
  /** Spec 8: 7 days (ACCOUNT_DELETION_GRACE_SECONDS). */
  graceSeconds: number;
  /** A run not finished after this long is taken again by another worker. Default 900. */
  staleSeconds?: number;
}

const view = (r: DeletionRecord): DeletionView => ({ id: r.id, status: r.status, requested_at: r.requestedAt.toISOString(), scheduled_for: r.dueAt.toISOString() });

/**
 * Account deletion (issue #18 item 2): requested with step-up
 * (`gdpr.delete.confirmed`), cancellable during the grace of spec 8, then run
 * by the workers role: tokens are revoked first, each module removes what the
 * user owns (`service.cascade_delete`, counts only), then the account
 * (`gdpr.delete.completed`). Audit rows keep the user id and nothing else of
 * the person; they stay for their own retention (spec 2.19).
 */
export class AccountDeletionsService {
  constructor(private readonly deps: AccountDeletionsDeps) {}

  async request(userId: number): Promise<DeletionView> {
    const { record, created } = await this.deps.repo.requestDeletion(userId, this.deps.graceSeconds);
    if (created) this.deps.audit.record({ action: 'gdpr.delete.confirmed', actorUserId: userId, details: { deletion_id: record.id, scheduled_for: record.dueAt.toISOString() } });
    return view(record);
  }

  async status(userId: number): Promise<DeletionView> {
    const record = await this.deps.repo.findDeletion(userId);
    if (!record) throw new NotFoundError('No account deletion pending');
    return view(record);
  }

  async cancel(userId: number): Promise<DeletionView> {
    const record = await this.deps.repo.cancelDeletion(userId);
    if (!record) throw new NotFoundError('No account deletion pending');
    this.deps.audit.record({ action: 'gdpr.delete.cancelled', actorUserId: userId, details: { deletion_id: record.id } });
    return { ...view(record), status: 'cancelled' };
  }

  /** Runs every deletion whose grace has ended (workers role); answers how many completed. */
  async runDue(now = new Date()): Promise<number> {
    let completed = 0;
    // A run that fails (the router down, say) is taken again on the next round, not at once.
    const tried: number[] = [];
    for (;;) {
      const record = await this.deps.repo.claimDueDeletion(now, this.deps.staleSeconds ?? 900, tried);
      if (!record) return completed;
      tried.push(record.id);
      if (await this.run(record)) completed += 1;
    }
  }

  private async run(record: DeletionRecord): Promise<boolean> {
    const { userId } = record;
    const log = this.deps.logger.child({ deletionId: record.id, userId });
    try {
      // Nothing the user holds a token for may run while the rest goes.
      await this.deps.repo.revokeTokens(userId);
      const totals: Record<string, RemovedCounts> = {};
      for (const holder of this.deps.holders()) {
        const removed = await holder.purgeUser(userId);
        totals[holder.service] = removed;
        this.deps.audit.record({ action: 'service.cascade_delete', actorUserId: userId, details: { deletion_id: record.id, service: holder.service, removed } });
      }
      await this.deps.repo.finishDeletion(record.id);
      this.deps.audit.record({ action: 'gdpr.delete.completed', actorUserId: userId, details: { deletion_id: record.id, services: Object.keys(totals) } });
      log.info('account deleted', { services: Object.keys(totals).length });
      return true;
    } catch (err) {
      // The next round runs it again from the start: every purge is idempotent.
      log.warn('account deletion failed; retried on the next round', { error: errorMessage(err), attempt: record.attempts });
      await this.deps.repo.releaseDeletion(record.id);
      return false;
    }
  }
}
