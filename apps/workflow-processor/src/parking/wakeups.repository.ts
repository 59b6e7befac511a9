import type { JobMessageV1 } from '@docflow/contracts';
import type { DataSource } from 'typeorm';
import type { DueWakeUp, ParkedNode, ParkStore } from './park-store';

interface StoredNode {
  node_id: string;
  due: string;
  attempt: number;
  state: unknown;
}

function toStored(n: ParkedNode): StoredNode {
  return { node_id: n.nodeId, due: n.due.toISOString(), attempt: n.attempt, state: n.state ?? null };
}

function fromStored(raw: unknown): ParkedNode[] {
  if (!Array.isArray(raw)) return [];
  const out: ParkedNode[] = [];
  for (const item of raw as Partial<StoredNode>[]) {
    if (typeof item?.node_id !== 'string' || typeof item.due !== 'string') continue;
    const due = new Date(item.due);
    if (Number.isNaN(due.getTime())) continue;
    out.push({ nodeId: item.node_id, due, attempt: typeof item.attempt === 'number' && item.attempt >= 1 ? item.attempt : 1, state: item.state ?? null });
  }
  return out;
}

/** The table `workflow_wakeups`: parked runs and their scheduled wake-ups. */
export class WakeupsRepository implements ParkStore {
  constructor(private readonly ds: DataSource) {}

  async loadParked(executionKey: string): Promise<ParkedNode[]> {
    const rows = (await this.ds.query('SELECT parked FROM workflow_wakeups WHERE execution_key = $1', [executionKey])) as { parked: unknown }[];
    return fromStored(rows[0]?.parked);
  }

  async park(executionKey: string, job: JobMessageV1, nodes: readonly ParkedNode[], wakeAt: Date): Promise<void> {
    await this.ds.query(
      `INSERT INTO workflow_wakeups (execution_key, job_id, job, parked, wake_at)
       VALUES ($1, $2, $3::jsonb, $4::jsonb, $5)
       ON CONFLICT (execution_key) DO UPDATE
          SET job_id = EXCLUDED.job_id, job = EXCLUDED.job, parked = EXCLUDED.parked, wake_at = EXCLUDED.wake_at, updated_at = now()`,
      [executionKey, job.job_id, JSON.stringify(job), JSON.stringify(nodes.map(toStored)), wakeAt],
    );
  }

  async clear(executionKey: string): Promise<void> {
    await this.ds.query('DELETE FROM workflow_wakeups WHERE execution_key = $1', [executionKey]);
  }

  /**
   * Deletes up to `limit` rows woken and untouched for `days` (left behind by
   * a run that ended without clearing them); returns how many.
   */
  async pruneBatch(days: number, limit: number): Promise<number> {
    const result = (await this.ds.query(
      `DELETE FROM workflow_wakeups WHERE execution_key = ANY(ARRAY(
         SELECT execution_key FROM workflow_wakeups
          WHERE wake_at IS NULL AND updated_at < now() - make_interval(days => $1)
          LIMIT $2))`,
      [days, limit],
    )) as [unknown[], number];
    return result[1];
  }

  async wakeDue(limit: number, publish: (wake: DueWakeUp) => Promise<void>): Promise<number> {
    return this.ds.transaction(async (m) => {
      // Locked rows belong to another replica's pass (or to a run re-parking): skipped, never waited for.
      const due = (await m.query(
        `SELECT execution_key, job FROM workflow_wakeups
          WHERE wake_at <= now()
          ORDER BY wake_at
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
        [limit],
      )) as { execution_key: string; job: JobMessageV1 }[];
      const woken: string[] = [];
      for (const row of due) {
        await publish({ executionKey: row.execution_key, job: row.job });
        woken.push(row.execution_key);
      }
      if (woken.length) await m.query('UPDATE workflow_wakeups SET wake_at = NULL, updated_at = now() WHERE execution_key = ANY($1::text[])', [woken]);
      return woken.length;
    });
  }
}
