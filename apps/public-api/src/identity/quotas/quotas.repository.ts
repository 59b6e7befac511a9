import { GroupCommit, type ItemOutcome } from '@docflow/persistence';
import type { PublicApiDatabase } from '../../platform';

/** An administrator's overrides of the configured defaults; null keeps the default. */
export interface QuotaOverrides {
  storageBytes: number | null;
  llmCostMonthly: number | null;
  executionsMonthly: number | null;
}

export const NO_OVERRIDES: QuotaOverrides = { storageBytes: null, llmCostMonthly: null, executionsMonthly: null };

/** What a user has used: storage now, executions and LLM cost in the period (a UTC month). */
export interface QuotaUsageRow {
  storageBytes: number;
  executions: number;
  llmCost: number;
  warned: string[];
}

interface OverrideRow {
  storage_bytes: string | null;
  llm_cost_monthly: string | null;
  executions_monthly: number | null;
}

/**
 * What a start's own statement found of the user's monthly quotas (issue #16,
 * "one commit per start": the count is taken in the statement that starts the
 * execution; see START_QUOTA_SQL).
 */
export interface StartQuotaFound {
  /** The effective limits (override, else the configured default); null: no limit. */
  executionsMonthly: number | null;
  llmCostMonthly: number | null;
  /** The period's LLM cost, read only when there is an LLM limit. */
  llmUsed: number | null;
  /** The period's count of starts before this one (the statement's snapshot, taken under the owner's start lock). */
  used: number;
  /** The period's count after this start, or null when it was not counted. */
  counted: number | null;
}

const num = (v: string | null): number | null => (v === null ? null : Number(v));

/** The LLM cost of user `user`'s executions created in the month starting at `period` (a date). */
const periodLlmCost = (user: string, period: string): string =>
  `COALESCE((SELECT sum(total_cost) FROM workflow_executions WHERE user_id = ${user} AND created_at >= ${period}::date AND created_at < (${period}::date + interval '1 month')), 0)`;

/** The terms a start is counted on: the period (first day of a UTC month) and the configured default limits. */
export interface StartQuotaTerms {
  period: string;
  executionsMonthly: number | null;
  llmCostMonthly: number | null;
}

/**
 * The quota part of the statement that starts an execution (issue #16, "one
 * commit per start"), as two CTEs the start's statement includes; the names
 * are SQL expressions of that statement (parameters). `quota_lim` has one row
 * when `period` is not null: the effective limits (override, else default),
 * the period's LLM cost (summed only when there is an LLM limit) and the
 * period's count so far. `quota_taken` counts one start when `eligible` (a
 * CTE of the start: one row when the start itself would go ahead) has a row
 * and the LLM cost is under its limit, by a guarded upsert: on conflict the
 * period's row is locked and the limit re-checked on it, so the count cannot
 * pass the limit whatever else counts at the same time. It returns the
 * count after this start; no row means not counted. The start's update
 * requires that row, so a start and its count commit together or not at all.
 */
export function startQuotaCtes(p: { user: string; period: string; execsDefault: string; llmDefault: string; eligible: string }): string {
  return `quota_lim AS (
     SELECT l.execs, l.llm, CASE WHEN l.llm IS NULL THEN NULL ELSE ${periodLlmCost(p.user, p.period)} END AS llm_used,
            COALESCE((SELECT executions FROM user_quota_periods WHERE user_id = ${p.user} AND period = ${p.period}), 0) AS used
       FROM (SELECT COALESCE((SELECT executions_monthly FROM user_quotas WHERE user_id = ${p.user}), ${p.execsDefault}) AS execs,
                    COALESCE((SELECT llm_cost_monthly FROM user_quotas WHERE user_id = ${p.user}), ${p.llmDefault}) AS llm) AS l
      WHERE ${p.period} IS NOT NULL
   ), quota_taken AS (
     INSERT INTO user_quota_periods AS p (user_id, period, executions)
     SELECT ${p.user}, ${p.period}, 1 FROM quota_lim, ${p.eligible}
      WHERE (quota_lim.execs IS NULL OR quota_lim.execs >= 1) AND (quota_lim.llm IS NULL OR quota_lim.llm_used < quota_lim.llm)
     ON CONFLICT (user_id, period) DO UPDATE SET executions = p.executions + 1
      WHERE (SELECT execs FROM quota_lim) IS NULL OR p.executions + 1 <= (SELECT execs FROM quota_lim)
     RETURNING executions
   )`;
}

/**
 * The statement that gives a start back (its execution went back to queued):
 * a CTE of the revert, which names the reverted rows `reverted` (with their
 * `user_id`); nothing when `period` is null (the start was not counted).
 */
export function startGiveBackCte(period: string): string {
  return `quota_back AS (
     UPDATE user_quota_periods AS p SET executions = GREATEST(p.executions - 1, 0)
       FROM reverted WHERE ${period}::date IS NOT NULL AND p.user_id = reverted.user_id AND p.period = ${period}::date
   )`;
}

/**
 * Quotas and their counters. Storage usage is the documents' counter
 * (user_storage_usage) and LLM cost the executions' recorded cost
 * (workflow_executions.total_cost), read here as they are; executions
 * started are counted here, by guarded updates like storage.
 */
export class QuotasRepository {
  /** Reads of overrides queued while one is in flight go together, in one statement (an upload and a start each read them). */
  private readonly overrideReads = new GroupCommit<number, QuotaOverrides>((userIds) => this.overridesOf(userIds), { maxItems: 64, lingerMs: 0 });

  constructor(private readonly ds: PublicApiDatabase) {}

  async overrides(userId: number): Promise<QuotaOverrides> {
    return this.overrideReads.submit(userId);
  }

  private async overridesOf(userIds: number[]): Promise<ItemOutcome<QuotaOverrides>[]> {
    const rows = (await this.ds.query('SELECT user_id, storage_bytes, llm_cost_monthly, executions_monthly FROM user_quotas WHERE user_id = ANY($1::int[])', [
      [...new Set(userIds)],
    ])) as (OverrideRow & { user_id: number })[];
    const byUser = new Map(rows.map((row) => [row.user_id, { storageBytes: num(row.storage_bytes), llmCostMonthly: num(row.llm_cost_monthly), executionsMonthly: row.executions_monthly }]));
    return userIds.map((id) => ({ ok: true, value: byUser.get(id) ?? NO_OVERRIDES }));
  }

  /** Writes all three overrides (null resets one to the default) and returns the previous ones. */
  async setOverrides(userId: number, next: QuotaOverrides, updatedBy: number): Promise<QuotaOverrides> {
    return this.ds.transaction(async (m) => {
      const rows = (await m.query('SELECT storage_bytes, llm_cost_monthly, executions_monthly FROM user_quotas WHERE user_id = $1 FOR UPDATE', [userId])) as OverrideRow[];
      const row = rows[0];
      await m.query(
        `INSERT INTO user_quotas (user_id, storage_bytes, llm_cost_monthly, executions_monthly, updated_by) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (user_id) DO UPDATE SET storage_bytes = $2, llm_cost_monthly = $3, executions_monthly = $4, updated_by = $5, updated_at = now()`,
        [userId, next.storageBytes, next.llmCostMonthly, next.executionsMonthly, updatedBy],
      );
      return row ? { storageBytes: num(row.storage_bytes), llmCostMonthly: num(row.llm_cost_monthly), executionsMonthly: row.executions_monthly } : NO_OVERRIDES;
    });
  }

  async usage(userId: number, period: string): Promise<QuotaUsageRow> {
    const rows = (await this.ds.query(
      `SELECT
         COALESCE((SELECT used_bytes FROM user_storage_usage WHERE user_id = $1), 0) AS storage_bytes,
         COALESCE((SELECT executions FROM user_quota_periods WHERE user_id = $1 AND period = $2::date), 0) AS executions,
         COALESCE((SELECT warned FROM user_quota_periods WHERE user_id = $1 AND period = $2::date), '{}') AS warned,
         ${periodLlmCost('$1', '$2')} AS llm_cost`,
      [userId, period],
    )) as { storage_bytes: string; executions: number; warned: string[]; llm_cost: string }[];
    const row = rows[0]!;
    return { storageBytes: Number(row.storage_bytes), executions: Number(row.executions), llmCost: Number(row.llm_cost), warned: row.warned };
  }

  /** Marks the warning of `quota` as sent for the period; false when it already was (so one mail per period, whatever the processes). */
  async markWarned(userId: number, period: string, quota: string): Promise<boolean> {
    const rows = (await this.ds.query(
      `INSERT INTO user_quota_periods AS p (user_id, period, warned) VALUES ($1, $2::date, ARRAY[$3::text])
       ON CONFLICT (user_id, period) DO UPDATE SET warned = array_append(p.warned, $3::text)
       WHERE NOT ($3::text = ANY (p.warned))
       RETURNING 1`,
      [userId, period, quota],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Takes back a mark whose mail could not be sent, so a later check tries again. */
  async unmarkWarned(userId: number, period: string, quota: string): Promise<void> {
    await this.ds.query('UPDATE user_quota_periods SET warned = array_remove(warned, $3::text) WHERE user_id = $1 AND period = $2::date', [userId, period, quota]);
  }

  async userExists(userId: number): Promise<boolean> {
    const rows = (await this.ds.query('SELECT 1 FROM users WHERE id = $1', [userId])) as unknown[];
    return rows.length > 0;
  }

  async emailOf(userId: number): Promise<{ email: string; username: string } | undefined> {
    const rows = (await this.ds.query('SELECT email, username FROM users WHERE id = $1', [userId])) as { email: string; username: string }[];
    return rows[0];
  }
}
