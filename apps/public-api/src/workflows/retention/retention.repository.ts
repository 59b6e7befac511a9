import type { DataSource } from 'typeorm';

/**
 * Deletes of the workflows module's old rows (issue #15 item 5), one small
 * batch per call: finished executions with their steps (the timeline), and
 * settled event logs (their trigger rows cascade). Each batch is its own
 * short transaction on rows picked with SKIP LOCKED, so replicas share the
 * work and no table is locked for long.
 */
export class RetentionRepository {
  constructor(private readonly ds: DataSource) {}

  /** Up to `limit` executions finished (completed, failed, cancelled) more than `days` ago, and their steps. */
  async pruneExecutionsBatch(days: number, limit: number): Promise<{ executions: number; steps: number }> {
    return this.ds.transaction(async (m) => {
      const rows = (await m.query(
        `SELECT id FROM workflow_executions
          WHERE status IN ('completed', 'failed', 'cancelled') AND completed_at < now() - make_interval(days => $1)
          ORDER BY completed_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED`,
        [days, limit],
      )) as { id: number }[];
      if (!rows.length) return { executions: 0, steps: 0 };
      const ids = rows.map((r) => r.id);
      // Steps first and counted; the foreign key would cascade them anyway.
      const steps = (await m.query('DELETE FROM workflow_execution_steps WHERE execution_id = ANY($1::int[])', [ids])) as [unknown[], number];
      const executions = (await m.query('DELETE FROM workflow_executions WHERE id = ANY($1::int[])', [ids])) as [unknown[], number];
      return { executions: executions[1], steps: steps[1] };
    });
  }

  /** Up to `limit` event logs settled (processed, ignored, failed) and received more than `days` ago. */
  async pruneEventLogsBatch(days: number, limit: number): Promise<number> {
    const result = (await this.ds.query(
      `DELETE FROM event_logs WHERE id = ANY(ARRAY(
         SELECT id FROM event_logs
          WHERE status IN ('processed', 'ignored', 'failed') AND received_at < now() - make_interval(days => $1)
          LIMIT $2
          FOR UPDATE SKIP LOCKED))`,
      [days, limit],
    )) as [unknown[], number];
    return result[1];
  }
}
