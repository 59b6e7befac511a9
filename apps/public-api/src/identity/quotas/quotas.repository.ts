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

/** The configured defaults a start's limits fall back to (no override). */
export interface StartDefaults {
  executionsMonthly: number | null;
  llmCostMonthly: number | null;
}

/** One start to check and count (QuotasRepository.takeExecutionStart). */
interface StartItem {
  userId: number;
  period: string;
  defaults: StartDefaults;
}

/** What one start's quota check found (`takeExecutionStart`). */
export interface ExecutionTake {
  /** The period's count after this start (after its batch, for a user without limits), or null when it was refused (nothing counted). */
  executions: number | null;
  /** The effective limits (override, else default). */
  executionsMonthly: number | null;
  llmCostMonthly: number | null;
  /** The period's LLM cost, read only when there is an LLM limit. */
  llmUsed: number | null;
}

const num = (v: string | null): number | null => (v === null ? null : Number(v));

/** The LLM cost of user $1's executions created in the month starting at $2 (a date). */
const PERIOD_LLM_COST = `COALESCE((SELECT sum(total_cost) FROM workflow_executions WHERE user_id = $1 AND created_at >= $2::date AND created_at < ($2::date + interval '1 month')), 0)`;

/**
 * Quotas and their counters. Storage usage is the documents' counter
 * (user_storage_usage) and LLM cost the executions' recorded cost
 * (workflow_executions.total_cost), read here as they are; executions
 * started are counted here, by guarded updates like storage.
 */
export class QuotasRepository {
  /** Reads of overrides queued while one is in flight go together, in one statement (an upload and a start each read them). */
  private readonly overrideReads = new GroupCommit<number, QuotaOverrides>((userIds) => this.overridesOf(userIds), { maxItems: 64, lingerMs: 0 });
  /** Starts checked while one check is in flight go together (the event bus starts a batch's runs at once). */
  private readonly startTakes = new GroupCommit<StartItem, ExecutionTake>((items) => this.takeStarts(items), { maxItems: 64, lingerMs: 0 });

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
         ${PERIOD_LLM_COST} AS llm_cost`,
      [userId, period],
    )) as { storage_bytes: string; executions: number; warned: string[]; llm_cost: string }[];
    const row = rows[0]!;
    return { storageBytes: Number(row.storage_bytes), executions: Number(row.executions), llmCost: Number(row.llm_cost), warned: row.warned };
  }

  /**
   * A start's whole quota check (issue #16): reads the user's overrides,
   * applies them over `defaults`, and counts one execution in the period
   * unless the executions limit would be passed or the LLM cost of the
   * period has reached its limit (summed only when there is such a limit).
   * Alone, that is one statement (`takeOneStart`). Starts queued while one
   * is in flight go together: one statement adds up those of users with no
   * limit of either kind (nothing can refuse them), and each start of a
   * limited user then gets its own guarded statement.
   */
  async takeExecutionStart(userId: number, period: string, defaults: StartDefaults): Promise<ExecutionTake> {
    return this.startTakes.submit({ userId, period, defaults });
  }

  private async takeStarts(items: StartItem[]): Promise<ItemOutcome<ExecutionTake>[]> {
    if (items.length === 1) {
      const [only] = items as [StartItem];
      return [{ ok: true, value: await this.takeOneStart(only.userId, only.period, only.defaults) }];
    }
    const free = new Map<string, ExecutionTake>();
    const byDefaults = new Map<string, StartItem[]>();
    for (const item of items) {
      const k = `${item.defaults.executionsMonthly}|${item.defaults.llmCostMonthly}`;
      byDefaults.set(k, [...(byDefaults.get(k) ?? []), item]);
    }
    for (const group of byDefaults.values()) {
      const { defaults } = group[0]!;
      const rows = (await this.ds.query(
        `WITH req AS (
           SELECT t.user_id, t.period, count(*)::int AS n FROM unnest($1::int[], $2::date[]) AS t(user_id, period) GROUP BY t.user_id, t.period
         ), lim AS (
           SELECT req.user_id, req.period, req.n, COALESCE(q.executions_monthly, $3::integer) AS execs, COALESCE(q.llm_cost_monthly, $4::numeric) AS llm
           FROM req LEFT JOIN user_quotas q ON q.user_id = req.user_id
         ), taken AS (
           INSERT INTO user_quota_periods AS p (user_id, period, executions)
           SELECT user_id, period, n FROM lim WHERE execs IS NULL AND llm IS NULL
           ON CONFLICT (user_id, period) DO UPDATE SET executions = p.executions + EXCLUDED.executions
           RETURNING user_id, period, executions
         )
         SELECT taken.user_id, taken.period::text AS period, taken.executions FROM taken`,
        [group.map((t) => t.userId), group.map((t) => t.period), defaults.executionsMonthly, defaults.llmCostMonthly],
      )) as { user_id: number; period: string; executions: number }[];
      for (const r of rows) free.set(`${r.user_id}:${r.period}`, { executions: Number(r.executions), executionsMonthly: null, llmCostMonthly: null, llmUsed: null });
    }
    return Promise.all(
      items.map(async (t): Promise<ItemOutcome<ExecutionTake>> => {
        try {
          return { ok: true, value: free.get(`${t.userId}:${t.period}`) ?? (await this.takeOneStart(t.userId, t.period, t.defaults)) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  /** One start's check and count in one statement (see takeExecutionStart). */
  private async takeOneStart(userId: number, period: string, defaults: StartDefaults): Promise<ExecutionTake> {
    const rows = (await this.ds.query(
      `WITH lim AS (
         SELECT COALESCE((SELECT executions_monthly FROM user_quotas WHERE user_id = $1), $3::integer) AS execs,
                COALESCE((SELECT llm_cost_monthly FROM user_quotas WHERE user_id = $1), $4::numeric) AS llm
       ), cost AS (
         SELECT lim.execs, lim.llm,
                CASE WHEN lim.llm IS NULL THEN NULL ELSE ${PERIOD_LLM_COST} END AS llm_used
         FROM lim
       ), taken AS (
         INSERT INTO user_quota_periods AS p (user_id, period, executions)
         SELECT $1, $2::date, 1 FROM cost WHERE (cost.execs IS NULL OR cost.execs >= 1) AND (cost.llm IS NULL OR cost.llm_used < cost.llm)
         ON CONFLICT (user_id, period) DO UPDATE SET executions = p.executions + 1
         WHERE (SELECT execs FROM cost) IS NULL OR p.executions + 1 <= (SELECT execs FROM cost)
         RETURNING executions
       )
       SELECT (SELECT executions FROM taken) AS executions, execs, llm, llm_used FROM cost`,
      [userId, period, defaults.executionsMonthly, defaults.llmCostMonthly],
    )) as { executions: number | null; execs: number | null; llm: string | null; llm_used: string | null }[];
    const row = rows[0]!;
    return {
      executions: row.executions === null ? null : Number(row.executions),
      executionsMonthly: row.execs === null ? null : Number(row.execs),
      llmCostMonthly: num(row.llm),
      llmUsed: num(row.llm_used),
    };
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
