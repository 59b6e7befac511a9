import type { DataSource } from 'typeorm';
import type { CheckpointStatus, CheckpointStore, NodeCheckpoint } from './checkpoint-store';
import { WorkflowNodeRunEntity } from './workflow-node-run.entity';

interface Row {
  node_id: string;
  task_type: string;
  status: CheckpointStatus;
  output: unknown;
  error: string | null;
  error_type: string | null;
  correlation_token: string | null;
  started_at: Date;
  completed_at: Date | null;
  cost: number | null;
}

const COLUMNS = 'node_id, task_type, status, output, error, error_type, correlation_token, started_at, completed_at, cost';

function fromRow(row: Row): NodeCheckpoint {
  return {
    nodeId: row.node_id,
    taskType: row.task_type,
    status: row.status,
    output: row.output ?? null,
    error: row.error,
    errorType: row.error_type,
    correlationToken: row.correlation_token,
    startedAt: new Date(row.started_at),
    completedAt: row.completed_at === null ? null : new Date(row.completed_at),
    cost: row.cost,
  };
}

function fromEntity(e: WorkflowNodeRunEntity): NodeCheckpoint {
  return {
    nodeId: e.nodeId,
    taskType: e.taskType,
    status: e.status,
    output: e.output ?? null,
    error: e.error,
    errorType: e.errorType,
    correlationToken: e.correlationToken,
    startedAt: e.startedAt,
    completedAt: e.completedAt,
    cost: e.cost,
  };
}

/** JSON for a jsonb column: PostgreSQL refuses the NUL character inside strings, so it is dropped. */
function toJsonb(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value, (_key, v: unknown) => (typeof v === 'string' && v.includes('\u0000') ? v.replaceAll('\u0000', '') : v));
}

function params(executionKey: string, jobId: string, c: NodeCheckpoint): unknown[] {
  return [executionKey, c.nodeId, jobId, c.taskType, c.status, toJsonb(c.output), c.error, c.errorType, c.correlationToken, c.startedAt, c.completedAt, c.cost];
}

/** The checkpoint table `workflow_node_runs`. */
export class NodeRunsRepository implements CheckpointStore {
  constructor(private readonly ds: DataSource) {}

  async load(executionKey: string): Promise<NodeCheckpoint[]> {
    const rows = await this.ds.getRepository(WorkflowNodeRunEntity).findBy({ executionKey });
    return rows.map(fromEntity);
  }

  async saveTerminal(executionKey: string, jobId: string, checkpoint: NodeCheckpoint): Promise<NodeCheckpoint> {
    const rows: Row[] = await this.ds.query(
      `INSERT INTO workflow_node_runs
         (execution_key, node_id, job_id, task_type, status, output, error, error_type, correlation_token, started_at, completed_at, cost)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (execution_key, node_id) DO UPDATE
          SET job_id = EXCLUDED.job_id, task_type = EXCLUDED.task_type, status = EXCLUDED.status,
              output = EXCLUDED.output, error = EXCLUDED.error, error_type = EXCLUDED.error_type,
              correlation_token = NULL, completed_at = EXCLUDED.completed_at, cost = EXCLUDED.cost, updated_at = now()
        WHERE workflow_node_runs.status = 'awaiting_input'
       RETURNING ${COLUMNS}`,
      params(executionKey, jobId, { ...checkpoint, correlationToken: null }),
    );
    return rows[0] ? fromRow(rows[0]) : this.existing(executionKey, checkpoint);
  }

  async savePause(executionKey: string, jobId: string, checkpoint: NodeCheckpoint): Promise<NodeCheckpoint> {
    const rows: Row[] = await this.ds.query(
      `INSERT INTO workflow_node_runs
         (execution_key, node_id, job_id, task_type, status, output, error, error_type, correlation_token, started_at, completed_at, cost)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (execution_key, node_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      params(executionKey, jobId, checkpoint),
    );
    return rows[0] ? fromRow(rows[0]) : this.existing(executionKey, checkpoint);
  }

  /**
   * Deletes up to `limit` checkpoints last written more than `days` ago,
   * except those of an execution still awaiting input (its resume needs
   * them); returns how many (retention, EXECUTION_RETENTION_DAYS).
   */
  async pruneBatch(days: number, limit: number): Promise<number> {
    const result = (await this.ds.query(
      `DELETE FROM workflow_node_runs WHERE ctid = ANY(ARRAY(
         SELECT r.ctid FROM workflow_node_runs r
          WHERE r.updated_at < now() - make_interval(days => $1)
            AND NOT EXISTS (SELECT 1 FROM workflow_node_runs a WHERE a.execution_key = r.execution_key AND a.status = 'awaiting_input')
          LIMIT $2))`,
      [days, limit],
    )) as [unknown[], number];
    return result[1];
  }

  private async existing(executionKey: string, checkpoint: NodeCheckpoint): Promise<NodeCheckpoint> {
    const row = await this.ds.getRepository(WorkflowNodeRunEntity).findOneBy({ executionKey, nodeId: checkpoint.nodeId });
    if (!row) throw new Error(`checkpoint of node ${checkpoint.nodeId} vanished while it was being written`);
    return fromEntity(row);
  }
}
