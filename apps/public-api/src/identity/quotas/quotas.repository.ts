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

/** One start to count (QuotasRepository.takeExecution). */
interface ExecutionTake {
  userId: number;
  period: string;
  limit: number | null;
}

const num = (v: string | null): number | null => (v === null ? null : Number(v));

/**
 * Quotas and their counters. Storage usage is the documents' counter
 * (user_storage_usage) and LLM cost the executions' recorded cost
 * (workflow_executions.total_cost), read here as they are; executions
 * started are counted here, by guarded updates like storage.
 */
export class QuotasRepository {
  /** Reads of overrides queued while one is in flight go together, in one statement (an upload and a start each read them). */
  private readonly overrideReads = new GroupCommit<number, QuotaOverrides>((userIds) => this.overridesOf(userIds), { maxItems: 64, lingerMs: 0 });
  /** Starts counted while one count is in flight go together (the event bus starts a batch's runs at once). */
  private readonly executionTakes = new GroupCommit<ExecutionTake, number | null>((takes) => this.takeExecutions(takes), { maxItems: 64, lingerMs: 0 });

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
         COALESCE((SELECT sum(total_cost) FROM workflow_executions WHERE user_id = $1 AND created_at >= $2::date AND created_at < ($2::date + interval '1 month')), 0) AS llm_cost`,
      [userId, period],
    )) as { storage_bytes: string; executions: number; warned: string[]; llm_cost: string }[];
    const row = rows[0]!;
    return { storageBytes: Number(row.storage_bytes), executions: Number(row.executions), llmCost: Number(row.llm_cost), warned: row.warned };
  }

  /** Counts one execution start in the period unless that passes `limit` (null: no limit); the count after it, or null when refused. */
  async takeExecution(userId: number, period: string, limit: number | null): Promise<number | null> {
    return this.executionTakes.submit({ userId, period, limit });
  }

  /**
   * Takes queued together: those without a limit are added up per user and
   * period in one statement (nothing can refuse them); each one with a
   * limit is its own guarded statement, as before.
   */
  private async takeExecutions(takes: ExecutionTake[]): Promise<ItemOutcome<number | null>[]> {
    const unlimited = takes.filter((t) => t.limit === null);
    const counts = new Map<string, number>();
    if (unlimited.length > 0) {
      const added = new Map<string, { userId: number; period: string; n: number }>();
      for (const t of unlimited) {
        const k = `${t.userId}:${t.period}`;
        const entry = added.get(k) ?? { userId: t.userId, period: t.period, n: 0 };
        entry.n += 1;
        added.set(k, entry);
      }
      const list = [...added.values()];
      const rows = (await this.ds.query(
        `INSERT INTO user_quota_periods AS p (user_id, period, executions) SELECT * FROM unnest($1::int[], $2::date[], $3::int[])
         ON CONFLICT (user_id, period) DO UPDATE SET executions = p.executions + EXCLUDED.executions
         RETURNING user_id, period::text AS period, executions`,
        [list.map((e) => e.userId), list.map((e) => e.period), list.map((e) => e.n)],
      )) as { user_id: number; period: string; executions: number }[];
      for (const r of rows) counts.set(`${r.user_id}:${r.period}`, Number(r.executions));
    }
    return Promise.all(
      takes.map(async (t): Promise<ItemOutcome<number | null>> => {
        try {
          return { ok: true, value: t.limit === null ? (counts.get(`${t.userId}:${t.period}`) ?? null) : await this.takeExecutionGuarded(t.userId, t.period, t.limit) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  private async takeExecutionGuarded(userId: number, period: string, limit: number | null): Promise<number | null> {
    const rows = (await this.ds.query(
      `INSERT INTO user_quota_periods AS p (user_id, period, executions) SELECT $1, $2::date, 1 WHERE $3::integer IS NULL OR $3::integer >= 1
       ON CONFLICT (user_id, period) DO UPDATE SET executions = p.executions + 1
       WHERE $3::integer IS NULL OR p.executions + 1 <= $3::integer
       RETURNING executions`,
      [userId, period, limit],
    )) as { executions: number }[];
    return rows[0] ? Number(rows[0].executions) : null;
  }

  /** Gives back a start counted for an execution that did not start after all. */
  async releaseExecution(userId: number, period: string): Promise<void> {
    await this.ds.query('UPDATE user_quota_periods SET executions = GREATEST(executions - 1, 0) WHERE user_id = $1 AND period = $2::date', [userId, period]);
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
