import type { Mailer } from '@docflow/mail';
import { errorMessage, type Logger, NotFoundError, TooManyRequestsError } from '@docflow/service-kit';
import type { AuditLog } from '../audit/audit-log';
import { NO_OVERRIDES, type QuotaOverrides, type QuotasRepository, type QuotaUsageRow, type StartQuotaFound, type StartQuotaTerms } from './quotas.repository';

/** Spec 8: a warning at 80 % of a cap, refusal at 100 %. */
export const QUOTA_WARNING_RATIO = 0.8;

export const QUOTA_NAMES = ['storage', 'executions', 'llm_cost'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

/** The configured defaults (STORAGE_QUOTA_MB, EXECUTION_QUOTA_MONTHLY, LLM_COST_QUOTA_MONTHLY_CENTS); null: no limit. */
export interface QuotaDefaults {
  storageBytes: number;
  executionsMonthly: number | null;
  llmCostMonthly: number | null;
}

export interface QuotaLine {
  used: number;
  /** Null: no limit. */
  limit: number | null;
  unit: 'bytes' | 'executions' | 'usd';
  /** used / limit, rounded to 4 places; null without a limit. */
  ratio: number | null;
  /** From 80 % of the limit. */
  warning: boolean;
  /** At or past the limit: what it counts is refused. */
  exceeded: boolean;
}

export interface UsageView {
  /** The UTC month executions and LLM cost are counted in (storage is not periodic). */
  period: { start: string; end: string };
  quotas: Record<QuotaName, QuotaLine>;
  /** The quotas at or past 80 %. */
  warnings: QuotaName[];
}

export interface AdminQuotaView extends UsageView {
  user_id: number;
  /** The administrator's values; null where the default applies. */
  overrides: { storage_bytes: number | null; executions_monthly: number | null; llm_cost_monthly: number | null };
  defaults: { storage_bytes: number; executions_monthly: number | null; llm_cost_monthly: number | null };
}

export interface QuotasServiceDeps {
  repo: QuotasRepository;
  defaults: QuotaDefaults;
  audit: AuditLog;
  mailer: Mailer;
  logger: Logger;
  now?: () => Date;
}

/** The first day of the UTC month of `at`, as `YYYY-MM-DD`. */
export function periodOf(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

function nextPeriod(period: string): string {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
}

function line(used: number, limit: number | null, unit: QuotaLine['unit']): QuotaLine {
  if (limit === null) return { used, limit, unit, ratio: null, warning: false, exceeded: false };
  const ratio = limit === 0 ? 1 : used / limit;
  return { used, limit, unit, ratio: Math.round(ratio * 10_000) / 10_000, warning: limit > 0 && ratio >= QUOTA_WARNING_RATIO, exceeded: used >= limit };
}

function auditedLimits(o: QuotaOverrides): Record<string, number | 'default'> {
  return { storage_bytes: o.storageBytes ?? 'default', executions_monthly: o.executionsMonthly ?? 'default', llm_cost_monthly: o.llmCostMonthly ?? 'default' };
}

const LABELS: Record<QuotaName, string> = { storage: 'storage', executions: 'monthly workflow executions', llm_cost: 'monthly LLM cost' };

function describe(name: QuotaName, l: QuotaLine): string {
  switch (l.unit) {
    case 'bytes':
      return `${(l.used / 1048576).toFixed(1)} MB of ${((l.limit ?? 0) / 1048576).toFixed(1)} MB`;
    case 'executions':
      return `${l.used} of ${l.limit ?? 0} executions`;
    case 'usd':
      return `$${l.used.toFixed(2)} of $${(l.limit ?? 0).toFixed(2)}`;
    default: {
      const never: never = l.unit;
      return `${name}: ${String(never)}`;
    }
  }
}

/** The 429 of a monthly quota met (its audit row is the caller's): the body every refused start answers, also a webhook trigger's. */
export function quotaExceededError(quota: QuotaName, used: number, limit: number, period: string, now: Date): TooManyRequestsError {
  const resetsAt = `${nextPeriod(period)}T00:00:00.000Z`;
  return new TooManyRequestsError(`Monthly ${LABELS[quota].replace('monthly ', '')} quota exceeded (${used} of ${limit}); it resets on ${nextPeriod(period)}`, {
    code: 'quota_exceeded',
    quota,
    used,
    limit,
    resets_at: resetsAt,
    retry_after: Math.max(1, Math.ceil((Date.parse(resetsAt) - now.getTime()) / 1000)),
  });
}

/**
 * Quotas (issue 18 item 3): storage (documents), workflow executions started
 * in a UTC month and LLM cost recorded on the month's executions. Defaults
 * come from the configuration; a super administrator may override each per
 * user (`quota.update`). From 80 % a user is warned: by a field in reads of
 * their usage and by one mail per quota and month.
 */
export class QuotasService {
  private readonly now: () => Date;

  constructor(private readonly deps: QuotasServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  private effective(o: QuotaOverrides): QuotaDefaults {
    const d = this.deps.defaults;
    return {
      storageBytes: o.storageBytes ?? d.storageBytes,
      executionsMonthly: o.executionsMonthly ?? d.executionsMonthly,
      llmCostMonthly: o.llmCostMonthly ?? d.llmCostMonthly,
    };
  }

  /** The storage a user may fill, in bytes (uploads reserve against it). */
  async storageQuotaBytes(userId: number): Promise<number> {
    return this.effective(await this.deps.repo.overrides(userId)).storageBytes;
  }

  private view(period: string, limits: QuotaDefaults, used: QuotaUsageRow): UsageView {
    const quotas: Record<QuotaName, QuotaLine> = {
      storage: line(used.storageBytes, limits.storageBytes, 'bytes'),
      executions: line(used.executions, limits.executionsMonthly, 'executions'),
      llm_cost: line(Math.round(used.llmCost * 1e6) / 1e6, limits.llmCostMonthly, 'usd'),
    };
    return { period: { start: period, end: nextPeriod(period) }, quotas, warnings: QUOTA_NAMES.filter((n) => quotas[n].warning) };
  }

  /** The user's usage against their quotas; any warning not yet mailed this month is mailed in the background (a read never waits for SMTP). */
  async usage(userId: number): Promise<UsageView> {
    const { view, mailed } = await this.usageAndMail(userId);
    mailed.catch((err: unknown) => this.deps.logger.warn('quota warning mail failed', { userId, error: errorMessage(err) }));
    return view;
  }

  /** Re-reads the usage and mails what crossed 80 % (after an upload or a start); never throws. */
  async checkWarnings(userId: number): Promise<void> {
    try {
      await (
        await this.usageAndMail(userId)
      ).mailed;
    } catch (err) {
      this.deps.logger.warn('quota warning check failed', { userId, error: errorMessage(err) });
    }
  }

  private async usageAndMail(userId: number): Promise<{ view: UsageView; mailed: Promise<void> }> {
    const period = periodOf(this.now());
    const [overrides, used] = await Promise.all([this.deps.repo.overrides(userId), this.deps.repo.usage(userId, period)]);
    const view = this.view(period, this.effective(overrides), used);
    return { view, mailed: this.mailWarnings(userId, period, view, used.warned) };
  }

  private async mailWarnings(userId: number, period: string, view: UsageView, warned: readonly string[]): Promise<void> {
    for (const name of view.warnings) {
      if (warned.includes(name)) continue;
      if (!(await this.deps.repo.markWarned(userId, period, name))) continue;
      const to = await this.deps.repo.emailOf(userId);
      if (!to) continue;
      const q = view.quotas[name];
      const percent = Math.round((q.ratio ?? 1) * 100);
      try {
        await this.deps.mailer.send({
          to: [to.email],
          subject: `Docflow: you have used ${percent}% of your ${LABELS[name]} quota`,
          text:
            `Hello ${to.username},\n\nYou have used ${describe(name, q)} (${percent}%) of your ${LABELS[name]} quota` +
            (name === 'storage' ? '.' : ` for ${period.slice(0, 7)} (until ${view.period.end}).`) +
            `\nAt 100% ${name === 'storage' ? 'uploads' : 'new workflow executions'} are refused. Ask an administrator to raise the quota if you need more.\n`,
        });
        this.deps.audit.record({ action: 'quota.warning', actorUserId: userId, details: { quota: name, ratio: q.ratio, period } });
      } catch (err) {
        // Not marked, so a later check tries again.
        await this.deps.repo.unmarkWarned(userId, period, name);
        this.deps.logger.warn('quota warning mail not sent', { userId, quota: name, error: errorMessage(err) });
      }
    }
  }

  /**
   * What a start is counted on now: the period and the configured defaults.
   * The start's own statement applies a user's overrides, takes the count
   * (guarded, so it cannot pass the limit) and commits it with the start;
   * a start put back to queued gives it back in the same statement
   * (startQuotaCtes, startGiveBackCte; issue #16, one commit per start).
   */
  startTerms(): StartQuotaTerms {
    return { period: periodOf(this.now()), executionsMonthly: this.deps.defaults.executionsMonthly, llmCostMonthly: this.deps.defaults.llmCostMonthly };
  }

  /**
   * The 429 of a start its statement refused for a quota, audited
   * `quota.exceeded`: the LLM cost quota first, then the executions quota,
   * with the count the statement read (read again when only the guard
   * refused it, i.e. another start was counted in between).
   */
  async startRefusal(userId: number, period: string, found: StartQuotaFound): Promise<TooManyRequestsError> {
    if (found.llmCostMonthly !== null && found.llmUsed !== null && found.llmUsed >= found.llmCostMonthly) {
      return this.exceeded(userId, 'llm_cost', found.llmUsed, found.llmCostMonthly, period);
    }
    const limit = found.executionsMonthly ?? 0;
    const used = found.used >= limit ? found.used : (await this.deps.repo.usage(userId, period)).executions;
    return this.exceeded(userId, 'executions', used, limit, period);
  }

  /** Refuses (429) an LLM call made for `userId` once the month's LLM cost reached its quota. */
  async assertLlmBudget(userId: number, known?: QuotaDefaults, knownPeriod?: string): Promise<void> {
    const period = knownPeriod ?? periodOf(this.now());
    const limits = known ?? this.effective(await this.deps.repo.overrides(userId));
    if (limits.llmCostMonthly === null) return;
    const used = (await this.deps.repo.usage(userId, period)).llmCost;
    if (used >= limits.llmCostMonthly) throw this.exceeded(userId, 'llm_cost', used, limits.llmCostMonthly, period);
  }

  private exceeded(userId: number, quota: QuotaName, used: number, limit: number, period: string): TooManyRequestsError {
    this.deps.audit.record({ action: 'quota.exceeded', actorUserId: userId, details: { quota, used, limit, period } });
    return quotaExceededError(quota, used, limit, period, this.now());
  }

  /** GET /admin/users/{id}/quotas. */
  async adminView(userId: number): Promise<AdminQuotaView> {
    if (!(await this.deps.repo.userExists(userId))) throw new NotFoundError('User not found');
    const period = periodOf(this.now());
    const [overrides, used] = await Promise.all([this.deps.repo.overrides(userId), this.deps.repo.usage(userId, period)]);
    return this.adminViewOf(userId, period, overrides, used);
  }

  private adminViewOf(userId: number, period: string, o: QuotaOverrides, used: QuotaUsageRow): AdminQuotaView {
    const d = this.deps.defaults;
    return {
      user_id: userId,
      overrides: { storage_bytes: o.storageBytes, executions_monthly: o.executionsMonthly, llm_cost_monthly: o.llmCostMonthly },
      defaults: { storage_bytes: d.storageBytes, executions_monthly: d.executionsMonthly, llm_cost_monthly: d.llmCostMonthly },
      ...this.view(period, this.effective(o), used),
    };
  }

  /**
   * PUT /admin/users/{id}/quotas: the fields given replace the user's
   * overrides (null returns one to the default; a field left out keeps its
   * value), audited as `quota.update` with the values before and after.
   */
  async update(adminId: number, userId: number, patch: Partial<QuotaOverrides>): Promise<AdminQuotaView> {
    if (!(await this.deps.repo.userExists(userId))) throw new NotFoundError('User not found');
    const current = await this.deps.repo.overrides(userId);
    const next: QuotaOverrides = { ...NO_OVERRIDES, ...current, ...patch };
    const before = await this.deps.repo.setOverrides(userId, next, adminId);
    this.deps.audit.record({
      action: 'quota.update',
      actorUserId: adminId,
      // `default` where no override applies (the audit log keeps no nulls).
      details: { user_id: userId, before: auditedLimits(before), after: auditedLimits(next) },
    });
    return this.adminView(userId);
  }
}
