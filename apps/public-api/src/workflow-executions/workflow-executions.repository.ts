import { DataSource, EntityManager } from 'typeorm';
import type { ExecutionStatus } from './execution-status';
import type { ExecutionResultUpdate } from './result-application';
import { WorkflowExecutionStepEntity } from './workflow-execution-step.entity';
import { WorkflowExecutionEntity } from './workflow-execution.entity';

/** First key of the advisory lock that serialises starts (and resumes) per user: pg_advisory_xact_lock(this, user_id). */
export const USER_START_LOCK = 44_040_001;

export interface NewExecutionRow {
  activityId: number;
  userId: number;
  workflowDefinition: Record<string, unknown>;
  inputs: Record<string, unknown>;
}

export interface StartChanges {
  inputs: Record<string, unknown>;
  jobId: string;
  /** Written to started_at and last_progress_at; the revert matches on it. */
  at: Date;
  deadlineAt: Date | null;
}

export interface ResumeChanges {
  jobId: string;
  at: Date;
  deadlineAt: Date | null;
}

/** Sealed state to put back when a resume could not be handed to the router. */
export interface ResumeRevert {
  id: number;
  jobId: string;
  at: Date;
  previous: Pick<
    WorkflowExecutionEntity,
    'correlationTokenHash' | 'correlationTokenSealed' | 'awaitingNode' | 'awaitingInputSchema' | 'awaitingSince' | 'resumeCount' | 'jobId' | 'lastSequence' | 'lastProgressAt' | 'deadlineAt'
  >;
}

export type LockedCheck = (row: WorkflowExecutionEntity, runningCount: () => Promise<number>) => Promise<void>;

export type ApplyResultOutcome = { outcome: 'applied'; status: ExecutionStatus } | { outcome: 'ignored'; status: ExecutionStatus } | { outcome: 'unknown' };

const RANK_SQL = `CASE e.status WHEN 'queued' THEN 0 WHEN 'running' THEN 1 WHEN 'awaiting_user_input' THEN 2 ELSE 3 END`;

export class WorkflowExecutionsRepository {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(WorkflowExecutionEntity);
  }

  insert(row: NewExecutionRow): Promise<WorkflowExecutionEntity> {
    return this.repo.save(this.repo.create({ ...row, status: 'queued', taskStates: {}, resumeCount: 0, totalCost: 0 }));
  }

  findById(id: number): Promise<WorkflowExecutionEntity | null> {
    return this.repo.findOneBy({ id });
  }

  /** Steps of an execution in the order they started (unstarted ones last). */
  findSteps(executionId: number): Promise<WorkflowExecutionStepEntity[]> {
    return this.ds
      .getRepository(WorkflowExecutionStepEntity)
      .createQueryBuilder('s')
      .where('s.execution_id = :executionId', { executionId })
      .orderBy('s.started_at', 'ASC', 'NULLS LAST')
      .addOrderBy('s.completed_at', 'ASC', 'NULLS LAST')
      .addOrderBy('s.id', 'ASC')
      .getMany();
  }

  /**
   * queued → running for a start. Under the owner's advisory lock (so parallel
   * starts of one user are counted one after the other) and the row lock,
   * `check` sees the current row and may throw to refuse (nothing changes).
   */
  async start(id: number, userId: number, check: LockedCheck, changes: StartChanges): Promise<WorkflowExecutionEntity | null> {
    return this.ds.transaction(async (m) => {
      const row = await this.lockForTransition(m, id, userId);
      if (!row) return null;
      await check(row, () => this.countRunning(m, userId));
      await m.query(
        `UPDATE workflow_executions
            SET status = 'running', inputs = $2::jsonb, job_id = $3, started_at = $4, last_progress_at = $4, deadline_at = $5,
                last_sequence = NULL, updated_at = now()
          WHERE id = $1 AND status = 'queued'`,
        [id, JSON.stringify(changes.inputs), changes.jobId, changes.at, changes.deadlineAt],
      );
      return m.getRepository(WorkflowExecutionEntity).findOneByOrFail({ id });
    });
  }

  /**
   * Back to queued after the router did not take the job, unless results of
   * that job arrived meanwhile (then it did run). The job id stays, so a late
   * result of a job the router did queue after all is still applied.
   */
  async revertStart(id: number, jobId: string, at: Date): Promise<boolean> {
    const rows = (await this.ds.query(
      `UPDATE workflow_executions
          SET status = 'queued', started_at = NULL, last_progress_at = NULL, deadline_at = NULL, updated_at = now()
        WHERE id = $1 AND status = 'running' AND job_id = $2 AND last_progress_at = $3
        RETURNING id`,
      [id, jobId, at],
    )) as [unknown[], number] | unknown[];
    return affected(rows) > 0;
  }

  /**
   * awaiting_user_input → running for a resume: under the same locks as a
   * start, `decide` verifies state, token and payload against the current row
   * (throwing to refuse) and names the new job; the token is cleared in the
   * same UPDATE, so it works once.
   */
  async resume(
    id: number,
    userId: number,
    decide: (row: WorkflowExecutionEntity, runningCount: () => Promise<number>) => Promise<ResumeChanges>,
  ): Promise<{ before: WorkflowExecutionEntity; revert: ResumeRevert } | null> {
    return this.ds.transaction(async (m) => {
      const before = await this.lockForTransition(m, id, userId);
      if (!before) return null;
      const changes = await decide(before, () => this.countRunning(m, userId));
      await m.query(
        `UPDATE workflow_executions
            SET status = 'running', correlation_token_hash = NULL, correlation_token_sealed = NULL,
                awaiting_node = NULL, awaiting_input_schema = NULL, awaiting_since = NULL,
                resume_count = resume_count + 1, job_id = $2, last_sequence = NULL, last_progress_at = $3, deadline_at = $4,
                updated_at = now()
          WHERE id = $1 AND status = 'awaiting_user_input'`,
        [id, changes.jobId, changes.at, changes.deadlineAt],
      );
      const { correlationTokenHash, correlationTokenSealed, awaitingNode, awaitingInputSchema, awaitingSince, resumeCount, jobId, lastSequence, lastProgressAt, deadlineAt } = before;
      return {
        before,
        revert: {
          id,
          jobId: changes.jobId,
          at: changes.at,
          previous: { correlationTokenHash, correlationTokenSealed, awaitingNode, awaitingInputSchema, awaitingSince, resumeCount, jobId, lastSequence, lastProgressAt, deadlineAt },
        },
      };
    });
  }

  /** Puts a resumed execution back to awaiting input (token included) when its job never reached the router. */
  async revertResume(r: ResumeRevert): Promise<boolean> {
    const p = r.previous;
    const rows = (await this.ds.query(
      `UPDATE workflow_executions
          SET status = 'awaiting_user_input', correlation_token_hash = $4, correlation_token_sealed = $5,
              awaiting_node = $6, awaiting_input_schema = $7::jsonb, awaiting_since = $8,
              resume_count = $9, job_id = $10, last_sequence = $11, last_progress_at = $12, deadline_at = $13, updated_at = now()
        WHERE id = $1 AND status = 'running' AND job_id = $2 AND last_progress_at = $3
        RETURNING id`,
      [
        r.id,
        r.jobId,
        r.at,
        p.correlationTokenHash,
        p.correlationTokenSealed,
        p.awaitingNode,
        p.awaitingInputSchema === null ? null : JSON.stringify(p.awaitingInputSchema),
        p.awaitingSince,
        p.resumeCount,
        p.jobId,
        p.lastSequence,
        p.lastProgressAt,
        p.deadlineAt,
      ],
    )) as [unknown[], number] | unknown[];
    return affected(rows) > 0;
  }

  /**
   * Applies one results message in one transaction: a single guarded UPDATE
   * (same job, not terminal, no lower rank, a higher sequence when both have
   * one), then, only when it matched, the step rows and the total cost.
   */
  async applyResult(u: ExecutionResultUpdate, sealedToken: string | null, tokenHash: string | null): Promise<ApplyResultOutcome> {
    return this.ds.transaction(async (m) => {
      const updated = (await m.query(
        `UPDATE workflow_executions AS e SET
            status = $3::text,
            task_states = e.task_states || $5::jsonb,
            outputs = CASE WHEN $6::jsonb IS NULL THEN e.outputs ELSE COALESCE(e.outputs, '{}'::jsonb) || $6::jsonb END,
            results = CASE WHEN $3::text = 'completed' THEN COALESCE(e.outputs, '{}'::jsonb) || COALESCE($6::jsonb, '{}'::jsonb) ELSE e.results END,
            error = CASE WHEN $3::text = 'failed' THEN $7::text ELSE NULL END,
            error_type = CASE WHEN $3::text = 'failed' THEN $8::text ELSE NULL END,
            failed_node = CASE WHEN $3::text = 'failed' THEN $9::text ELSE NULL END,
            awaiting_node = CASE WHEN $3::text = 'awaiting_user_input' THEN $10::text ELSE NULL END,
            awaiting_input_schema = CASE WHEN $3::text = 'awaiting_user_input' THEN $11::jsonb ELSE NULL END,
            correlation_token_hash = CASE WHEN $3::text = 'awaiting_user_input' THEN $12::text ELSE NULL END,
            correlation_token_sealed = CASE WHEN $3::text = 'awaiting_user_input' THEN $13::text ELSE NULL END,
            awaiting_since = CASE WHEN $3::text = 'awaiting_user_input' THEN COALESCE($14::timestamptz, now()) ELSE NULL END,
            last_sequence = COALESCE($15::bigint, e.last_sequence),
            started_at = COALESCE(e.started_at, now()),
            completed_at = CASE WHEN $3::text IN ('completed', 'failed') THEN now() ELSE e.completed_at END,
            last_progress_at = now(),
            updated_at = now()
          WHERE e.id = $1 AND e.job_id = $2::text
            AND e.status NOT IN ('completed', 'failed', 'cancelled')
            AND $4::int >= ${RANK_SQL}
            AND ($15::bigint IS NULL OR e.last_sequence IS NULL OR $15::bigint > e.last_sequence)
          RETURNING e.id, e.status`,
        [
          u.executionId,
          u.jobId,
          u.status,
          u.rank,
          JSON.stringify(u.taskStates),
          u.outputs === null ? null : JSON.stringify(u.outputs),
          u.error,
          u.errorType,
          u.failedNode,
          u.awaitingNode,
          u.awaitingInputSchema === null ? null : JSON.stringify(u.awaitingInputSchema),
          tokenHash,
          sealedToken,
          u.awaitingSince,
          u.sequence,
        ],
      )) as [{ id: number; status: ExecutionStatus }[], number];
      const applied = updated[0][0];
      if (!applied) {
        const current = (await m.query('SELECT status FROM workflow_executions WHERE id = $1', [u.executionId])) as { status: ExecutionStatus }[];
        return current[0] ? { outcome: 'ignored', status: current[0].status } : { outcome: 'unknown' };
      }
      if (u.steps.length > 0) await this.upsertSteps(m, u.executionId, u);
      await m.query(
        `UPDATE workflow_executions
            SET total_cost = COALESCE((SELECT sum(cost) FROM workflow_execution_steps WHERE execution_id = $1), 0)
          WHERE id = $1`,
        [u.executionId],
      );
      return { outcome: 'applied', status: applied.status };
    });
  }

  /**
   * Fails every running execution whose lease expired: no progress for
   * `leaseSeconds`, or (with a deadline) 60 s past the deadline. One UPDATE,
   * so replicas running it together fail each execution once.
   */
  async reapExpired(leaseSeconds: number): Promise<{ id: number; idleSeconds: number }[]> {
    const rows = (await this.ds.query(
      `UPDATE workflow_executions AS e SET
          status = 'failed',
          error = format('Execution lease expired: no progress reported by a workflow processor for %s s',
                         floor(extract(epoch FROM now() - COALESCE(e.last_progress_at, e.started_at, e.created_at)))::bigint),
          error_type = 'timeout',
          completed_at = now(),
          updated_at = now()
        WHERE e.status = 'running'
          AND (COALESCE(e.last_progress_at, e.started_at, e.created_at) < now() - make_interval(secs => $1)
               OR (e.deadline_at IS NOT NULL AND e.deadline_at + interval '60 seconds' < now()))
        RETURNING e.id, floor(extract(epoch FROM now() - COALESCE(e.last_progress_at, e.started_at, e.created_at)))::int AS "idleSeconds"`,
      [leaseSeconds],
    )) as [{ id: number; idleSeconds: number }[], number];
    return rows[0];
  }

  private async lockForTransition(m: EntityManager, id: number, userId: number): Promise<WorkflowExecutionEntity | null> {
    await m.query('SELECT pg_advisory_xact_lock($1, $2)', [USER_START_LOCK, userId]);
    return m
      .getRepository(WorkflowExecutionEntity)
      .createQueryBuilder('e')
      .setLock('pessimistic_write')
      .where('e.id = :id', { id })
      .getOne();
  }

  private async countRunning(m: EntityManager, userId: number): Promise<number> {
    const rows = (await m.query("SELECT count(*)::int AS n FROM workflow_executions WHERE user_id = $1 AND status = 'running'", [userId])) as { n: number }[];
    return rows[0]?.n ?? 0;
  }

  private async upsertSteps(m: EntityManager, executionId: number, u: ExecutionResultUpdate): Promise<void> {
    await m.query(
      `INSERT INTO workflow_execution_steps AS s
              (execution_id, node_id, step_name, step_type, status, started_at, completed_at, duration_seconds, cost, result_summary, error, error_type)
       SELECT $1, r.node_id, r.step_name, r.step_type, r.status, r.started_at, r.completed_at,
              CASE WHEN r.started_at IS NOT NULL AND r.completed_at IS NOT NULL
                   THEN round(greatest(extract(epoch FROM r.completed_at - r.started_at), 0)::numeric, 3) END,
              r.cost, r.result_summary, r.error, r.error_type
         FROM jsonb_to_recordset($2::jsonb) AS r(node_id text, step_name text, step_type text, status text,
              started_at timestamptz, completed_at timestamptz, cost numeric, result_summary text, error text, error_type text)
       ON CONFLICT (execution_id, node_id) DO UPDATE SET
              step_name = EXCLUDED.step_name,
              step_type = COALESCE(EXCLUDED.step_type, s.step_type),
              status = EXCLUDED.status,
              started_at = COALESCE(EXCLUDED.started_at, s.started_at),
              completed_at = EXCLUDED.completed_at,
              duration_seconds = CASE WHEN COALESCE(EXCLUDED.started_at, s.started_at) IS NOT NULL AND EXCLUDED.completed_at IS NOT NULL
                   THEN round(greatest(extract(epoch FROM EXCLUDED.completed_at - COALESCE(EXCLUDED.started_at, s.started_at)), 0)::numeric, 3) END,
              cost = COALESCE(EXCLUDED.cost, s.cost),
              result_summary = COALESCE(EXCLUDED.result_summary, s.result_summary),
              error = EXCLUDED.error,
              error_type = EXCLUDED.error_type,
              updated_at = now()`,
      [executionId, JSON.stringify(u.steps)],
    );
  }
}

/** Row count of an UPDATE ... RETURNING run through DataSource.query (TypeORM returns [rows, count] for postgres). */
function affected(result: [unknown[], number] | unknown[]): number {
  if (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[1];
  return result.length;
}
