import { DataSource, EntityManager } from 'typeorm';
import { GroupCommit, ItemOutcome, preparedRows, type PgTransaction, querySqlPrepared, queryRows, type SqlPreparedStatement, sqlInt, sqlLiteral, withPgTransaction } from '@docflow/persistence';
import { isDatabaseConnectionError } from '@docflow/service-kit';
import type { ExecutionStatus } from './execution-status';
import { startGiveBackCte, type StartQuotaFound, type StartQuotaTerms } from '../../identity';
import { ANNOUNCE_SQL, APPLY_RESULT_SQL, APPLY_RESULTS_KEYS, APPLY_RESULTS_SQL, CALLER_ANNOUNCES, START_STATEMENT, startQueuedSql, STATUS_COLUMNS, SUMMARY_COLUMNS } from './execution-queries';
import { EXECUTION_CHANGED_CHANNEL } from './execution-watch';
import type { ExecutionResultUpdate } from './result-application';
import { WorkflowExecutionStepEntity } from './workflow-execution-step.entity';
import { WorkflowExecutionEntity } from './workflow-execution.entity';

/** Starts per batch at most: one message, one transaction of that many pairs of statements. */
const START_BATCH_MAX = 32;

/** Announcements (each a start batch's or a results batch's payloads) per NOTIFY statement at most. */
const ANNOUNCE_BATCH_MAX = 64;

/** Creates of cached definitions per batch at most (one multi-row INSERT, one commit). */
const CREATE_BATCH_MAX = 32;

/** A create of an activity's cached definition (insertIfActivityVersion), serialised. */
interface VersionedInsert {
  activityId: number;
  userId: number;
  definitionJson: string;
  inputsJson: string;
  version: string;
}

/** First key of the advisory lock that serialises starts (and resumes) per user: pg_advisory_xact_lock(this, user_id). */
export const USER_START_LOCK = 44_040_001;

export interface NewExecutionRow {
  activityId: number;
  userId: number;
  workflowDefinition: Record<string, unknown>;
  inputs: Record<string, unknown>;
  /** A retry: the failed execution, and the outputs and task states of its completed nodes. */
  retry?: { of: number; outputs: Record<string, unknown>; taskStates: Record<string, unknown> };
}

export type CancelOutcome = { outcome: 'cancelled'; from: ExecutionStatus; completedAt: Date } | { outcome: 'missing' } | { outcome: 'terminal'; status: ExecutionStatus };

export interface ResumeChanges {
  jobId: string;
  at: Date;
  deadlineAt: Date | null;
  /** The user's payload for the waiting node: kept with the row until the next resume, for a resubmission. */
  payload: Record<string, unknown>;
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

/** What a start writes; the at/deadline come back from the database. */
export interface StartRequest {
  id: number;
  userId: number;
  /** The merged inputs to store, or null to keep (and trust) the stored ones. */
  inputs: Record<string, unknown> | null;
  jobId: string;
  /** Written to started_at and last_progress_at; the revert matches on it. */
  at: Date;
  maxRunning: number;
  /** The monthly quota to count the start against, in the start's own statement; null: none. */
  quota: StartQuotaTerms | null;
}

/** What the job payload and the response of a start need. */
export interface StartedRow {
  id: number;
  activityId: number;
  userId: number;
  workflowDefinition: Record<string, unknown>;
  inputs: Record<string, unknown>;
  startedAt: Date | null;
  deadlineAt: Date | null;
  dataShieldPolicy: Record<string, unknown> | null;
}

/** A resumed execution's row with what its job's `resume` part is built from (the resubmission sweep reads it). */
export interface ResumedRow extends StartedRow {
  jobId: string;
  resumeJob: { node_id: string; payload: Record<string, unknown> };
  taskStates: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
}

export type StartOutcome =
  /** `quota`: what the statement found of the monthly quotas, when the start was counted (null: no quota given). */
  | { outcome: 'started'; row: StartedRow; quota: StartQuotaFound | null }
  /** A monthly quota is used up: nothing was counted or started. */
  | { outcome: 'quota'; found: StartQuotaFound }
  /** No such execution, or not the caller's. */
  | { outcome: 'missing' }
  | { outcome: 'not_queued'; status: ExecutionStatus }
  | { outcome: 'limit'; running: number }
  /** inputs was null but nothing was stored at create (so nothing was validated): validate, then start with inputs. */
  | { outcome: 'unvalidated' };

/** The columns an execute with inputs needs before the start. */
export type StartCandidate = Pick<WorkflowExecutionEntity, 'id' | 'userId' | 'status' | 'inputs'> & { inputSchema: unknown };

/** The columns GET /{id} and the timeline read (not the definition, task states or tokens). */
export type ExecutionSummaryRow = Pick<
  WorkflowExecutionEntity,
  'id' | 'userId' | 'activityId' | 'status' | 'inputs' | 'results' | 'outputs' | 'startedAt' | 'completedAt' | 'error' | 'errorType' | 'failedNode' | 'totalCost' | 'createdAt' | 'updatedAt'
>;

/** The columns GET /{id}/status reads. */
export type ExecutionStatusRow = Pick<
  WorkflowExecutionEntity,
  | 'id'
  | 'userId'
  | 'status'
  | 'taskStates'
  | 'outputs'
  | 'awaitingNode'
  | 'awaitingInputSchema'
  | 'awaitingSince'
  | 'startedAt'
  | 'completedAt'
  | 'error'
  | 'errorType'
  | 'failedNode'
  | 'correlationTokenSealed'
>;

export type ApplyResultOutcome = { outcome: 'applied'; status: ExecutionStatus; userId: number } | { outcome: 'ignored'; status: ExecutionStatus } | { outcome: 'unknown' };

export class WorkflowExecutionsRepository {
  private readonly starts: GroupCommit<StartRequest, StartOutcome>;

  private readonly versionedInserts: GroupCommit<VersionedInsert, { id: number } | null>;

  /** Announcements sent and not answered yet (see `announce`). */
  private readonly announcing = new Set<Promise<void>>();

  /** Announcements made while one is in flight go together in the next statement (see `announce`). */
  private readonly announcements: GroupCommit<string[], void>;

  /**
   * `announceFailed`: told when the announcement of committed changes could not be sent (twice); their waiters
   * in other processes then answer when their wait runs out (docs/decisions.md, "Execution changes announced
   * after their commit").
   * `committedHere`: told of the same payloads as soon as their commit was answered, before they are sent, so this
   * process's own waiters need not wait for the announcement's round trip and its LISTEN delivery (see `announce`).
   */
  constructor(
    private readonly ds: DataSource,
    private readonly announceFailed: (err: unknown, payloads: number) => void = () => undefined,
    private readonly committedHere: (payloads: string[]) => void = () => undefined,
  ) {
    this.starts = new GroupCommit((batch) => this.startBatch(batch), { maxItems: START_BATCH_MAX, lingerMs: 0 });
    this.versionedInserts = new GroupCommit((batch) => this.insertVersionedBatch(batch), { maxItems: CREATE_BATCH_MAX, lingerMs: 0 });
    this.announcements = new GroupCommit(
      async (lists) => {
        const payloads = lists.flat();
        const send = () => this.prepared('wfx_announce', ANNOUNCE_SQL, [EXECUTION_CHANGED_CHANNEL, payloads]);
        // Sent again once when the connection failed (a commit's announcement is not worth losing to one broken socket).
        await send().catch((err: unknown) => {
          if (!isDatabaseConnectionError(err)) throw err;
          return send();
        });
        return lists.map(() => ({ ok: true as const, value: undefined }));
      },
      { maxItems: ANNOUNCE_BATCH_MAX, lingerMs: 0 },
    );
  }

  /**
   * NOTIFYs `docflow_execution_changed` with the payloads of changes a transaction that set CALLER_ANNOUNCES
   * committed (its trigger stayed silent): one statement for the batch, after the commit's answer, so no
   * listener hears of a change before it is visible. It writes nothing, so its commit flushes no WAL, and it
   * holds PostgreSQL's notify lock only for that instant instead of through the write's WAL flush. Not awaited
   * by the caller (the start or the results batch answers and acks at its commit, as before). Grouped like
   * starts: an announcement finding none in flight is sent at once; those made meanwhile (other start and
   * results batches) go together in the next statement. This process's own waiters are told first
   * (`committedHere`): the commit was answered, so what they read is visible; the NOTIFY that follows reaches them
   * again through LISTEN, which finds a terminal execution's waiters gone and costs the others one re-read.
   * `afterTurn`: the statement is sent a turn of the event loop later (a start's: its caller submits the job, and the
   * router client sends the submissions of a turn at that turn's end, so the router call, on the execution's critical
   * path, goes out first).
   */
  private announce(payloads: string[], afterTurn = false): void {
    if (payloads.length === 0) return;
    this.committedHere(payloads);
    const turn = afterTurn ? new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve))) : Promise.resolve();
    const sent: Promise<void> = turn
      .then(() => this.announcements.submit(payloads))
      .catch((err: unknown) => this.announceFailed(err, payloads.length))
      .finally(() => this.announcing.delete(sent));
    this.announcing.add(sent);
  }

  /** Resolves once every announcement sent so far was answered (for tests and an orderly stop). */
  async announced(): Promise<void> {
    await Promise.all([...this.announcing]);
  }

  private get repo() {
    return this.ds.getRepository(WorkflowExecutionEntity);
  }

  private rows<T>(text: string, values: unknown[]): Promise<T[]> {
    return queryRows<T>(this.ds, text, values);
  }

  /** Hot-path statements (insert, status read, result CTE) are prepared once per pooled connection. */
  private prepared<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return preparedRows<T>(this.ds, name, text, values);
  }

  /** One INSERT ... RETURNING id (no entity, no transaction around a single statement). */
  async insert(row: NewExecutionRow): Promise<{ id: number }> {
    const rows = await this.prepared<{ id: number }>(
      'wfx_insert_v2',
      `INSERT INTO workflow_executions (activity_id, user_id, status, workflow_definition, inputs, task_states, outputs, retry_of, resume_count, total_cost)
       VALUES ($1, $2, 'queued', $3::jsonb, $4::jsonb, COALESCE($5::jsonb, '{}'::jsonb), $6::jsonb, $7, 0, 0)
       RETURNING id`,
      [
        row.activityId,
        row.userId,
        JSON.stringify(row.workflowDefinition),
        JSON.stringify(row.inputs),
        row.retry ? JSON.stringify(row.retry.taskStates) : null,
        row.retry ? JSON.stringify(row.retry.outputs) : null,
        row.retry?.of ?? null,
      ],
    );
    const inserted = rows[0];
    if (!inserted) throw new Error('INSERT INTO workflow_executions returned no row');
    return inserted;
  }

  /**
   * `insert` of an execution of an activity's own definition, already
   * serialised, only while the activity's row is still at `version` (its
   * `xmin` when the definition was read and checked): the check and the
   * insert are one statement, so a definition changed by anyone since is
   * never stored. Null when the version moved (or the activity is gone).
   */
  insertIfActivityVersion(row: { activityId: number; userId: number; definitionJson: string; inputs: Record<string, unknown> }, version: string): Promise<{ id: number } | null> {
    return this.versionedInserts.submit({ ...row, inputsJson: JSON.stringify(row.inputs), version });
  }

  /**
   * Concurrent versioned inserts grouped (like starts): a lone one is one
   * statement; those queued behind an insert in flight go as one multi-row
   * INSERT, one commit, each row inserted only while its activity is at its
   * version. A batch that fails for anything but a lost connection is tried
   * one insert at a time, so that an error stays its own create's.
   */
  private async insertVersionedBatch(batch: VersionedInsert[]): Promise<ItemOutcome<{ id: number } | null>[]> {
    if (batch.length > 1) {
      try {
        return (await this.insertVersionedMany(batch)).map((value) => ({ ok: true as const, value }));
      } catch (err) {
        if (isDatabaseConnectionError(err)) throw err;
      }
    }
    return Promise.all(
      batch.map((r) =>
        this.prepared<{ id: number }>(
          'wfx_insert_versioned',
          `INSERT INTO workflow_executions (activity_id, user_id, status, workflow_definition, inputs, task_states, resume_count, total_cost)
           SELECT a.id, $2, 'queued', $3::jsonb, $4::jsonb, '{}'::jsonb, 0, 0 FROM activities a WHERE a.id = $1 AND a.xmin = $5::xid
           RETURNING id`,
          [r.activityId, r.userId, r.definitionJson, r.inputsJson, r.version],
        ).then(
          (rows) => ({ ok: true as const, value: rows[0] ?? null }),
          (error: unknown) => ({ ok: false as const, error }),
        ),
      ),
    );
  }

  /** One INSERT of the batch's rows whose activity is at its version; ids (null: not inserted) in the order of `batch`. */
  private async insertVersionedMany(batch: VersionedInsert[]): Promise<({ id: number } | null)[]> {
    const rows = await this.prepared<{ id: number | null }>(
      'wfx_insert_versioned_many',
      `WITH src AS MATERIALIZED (
         SELECT nextval(pg_get_serial_sequence('workflow_executions', 'id'))::int AS id, u.*
           FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(activity_id, user_id, definition, inputs, version, n)
       ), ins AS (
         INSERT INTO workflow_executions (id, activity_id, user_id, status, workflow_definition, inputs, task_states, resume_count, total_cost)
         SELECT src.id, src.activity_id, src.user_id, 'queued', src.definition::jsonb, src.inputs::jsonb, '{}'::jsonb, 0, 0
           FROM src JOIN activities a ON a.id = src.activity_id AND a.xmin = src.version::xid
         RETURNING id
       )
       SELECT ins.id FROM src LEFT JOIN ins ON ins.id = src.id ORDER BY src.n`,
      [batch.map((r) => r.activityId), batch.map((r) => r.userId), batch.map((r) => r.definitionJson), batch.map((r) => r.inputsJson), batch.map((r) => r.version)],
    );
    if (rows.length !== batch.length) throw new Error(`a batch of ${batch.length} inserts answered ${rows.length} rows`);
    return rows.map((r) => (r.id === null ? null : { id: r.id }));
  }

  /**
   * Several queued executions (no retries) in one INSERT inside the caller's
   * transaction `tx`, so that whatever the caller records of them commits
   * with them. Answers their ids in the order of `rows`: the ids are drawn
   * from the sequence in a materialised CTE, numbered like the rows.
   */
  async insertManyIn(tx: PgTransaction, rows: readonly Omit<NewExecutionRow, 'retry'>[]): Promise<number[]> {
    if (rows.length === 0) return [];
    const result = await tx.query(
      `WITH src AS MATERIALIZED (
         SELECT nextval(pg_get_serial_sequence('workflow_executions', 'id')) AS id, u.activity_id, u.user_id, u.definition, u.inputs, u.n
           FROM unnest($1::int[], $2::int[], $3::text[], $4::text[]) WITH ORDINALITY AS u(activity_id, user_id, definition, inputs, n)
       ), ins AS (
         INSERT INTO workflow_executions (id, activity_id, user_id, status, workflow_definition, inputs, task_states, resume_count, total_cost)
         SELECT id, activity_id, user_id, 'queued', definition::jsonb, inputs::jsonb, '{}'::jsonb, 0, 0 FROM src
       )
       SELECT id FROM src ORDER BY n`,
      [rows.map((r) => r.activityId), rows.map((r) => r.userId), rows.map((r) => JSON.stringify(r.workflowDefinition)), rows.map((r) => JSON.stringify(r.inputs))],
    );
    const ids = (result.rows as { id: string | number }[]).map((r) => Number(r.id));
    if (ids.length !== rows.length) throw new Error(`INSERT of ${rows.length} workflow executions answered ${ids.length} ids`);
    return ids;
  }

  /** `insertManyIn` in a transaction of its own that also runs `also(tx, ids)`: all commit together. */
  createManyWith(rows: readonly Omit<NewExecutionRow, 'retry'>[], also: (tx: PgTransaction, ids: number[]) => Promise<void>): Promise<number[]> {
    return withPgTransaction(this.ds, async (tx) => {
      const ids = await this.insertManyIn(tx, rows);
      await also(tx, ids);
      return ids;
    });
  }

  async findSummary(id: number): Promise<ExecutionSummaryRow | null> {
    const rows = await this.rows<ExecutionSummaryRow & { totalCost: string | number }>(`SELECT ${SUMMARY_COLUMNS} FROM workflow_executions WHERE id = $1`, [id]);
    const row = rows[0];
    return row ? { ...row, totalCost: Number(row.totalCost) } : null;
  }

  async findStatus(id: number): Promise<ExecutionStatusRow | null> {
    const rows = await this.prepared<ExecutionStatusRow>('wfx_status', `SELECT ${STATUS_COLUMNS} FROM workflow_executions WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** What an execute that brings inputs checks them against (the stored inputs and the input schema only). */
  async findStartCandidate(id: number): Promise<StartCandidate | null> {
    const rows = await this.rows<StartCandidate>(`SELECT id, user_id AS "userId", status, inputs, workflow_definition -> 'input_schema' AS "inputSchema" FROM workflow_executions WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /**
   * queued → running in one round trip: one simple-protocol message holding
   * two statements, which PostgreSQL runs as one implicit transaction. The
   * first takes the owner's advisory lock (so parallel starts of one user are
   * counted one after the other); the second, with a snapshot taken after the
   * lock, locks the row, counts the owner's running executions and updates
   * the row only when it is the owner's, queued, under the limit and (with
   * `inputs` null) has inputs validated at create. Values are integers or
   * escaped literals, since a multi-statement message takes no parameters.
   */
  async startQueued(r: StartRequest): Promise<StartOutcome> {
    return this.starts.submit(r);
  }

  /**
   * Concurrent starts grouped (docs/decisions.md, "Router job registrations and
   * execution starts grouped"): the pairs of statements of a batch go as one message, one
   * implicit transaction, one commit. Pairs are ordered by owner, so the
   * advisory locks are always taken in the same order (no deadlock between
   * batches); a later pair of the same owner counts the running executions
   * the earlier one just started. A batch that fails for any reason but a
   * lost connection is rolled back whole and its starts are tried one by
   * one, so that one start's error is only its own.
   */
  private async startBatch(batch: StartRequest[]): Promise<ItemOutcome<StartOutcome>[]> {
    if (batch.length > 1) {
      try {
        return await this.startQueuedMany(batch);
      } catch (err) {
        if (isDatabaseConnectionError(err)) throw err;
      }
    }
    if (batch.length === 1) return this.startQueuedMany(batch);
    return Promise.all(
      batch.map((r) =>
        this.startQueuedMany([r]).then(
          (o) => o[0] as ItemOutcome<StartOutcome>,
          (error: unknown) => ({ ok: false as const, error }),
        ),
      ),
    );
  }

  private async startQueuedMany(batch: StartRequest[]): Promise<ItemOutcome<StartOutcome>[]> {
    const order = batch.map((r, i) => ({ r, i })).sort((a, b) => a.r.userId - b.r.userId || a.i - b.i);
    const text = order.map(({ r }) => startQueuedSql(r, USER_START_LOCK)).join(';\n');
    const list = await querySqlPrepared(this.ds, START_STATEMENT, text);
    if (list.length !== 2 * batch.length) throw new Error(`a batch of ${batch.length} starts answered ${list.length} results`);
    this.announce(
      list.flatMap((r, k) => (k % 2 === 1 && typeof r.rows[0]?.['announce'] === 'string' ? [r.rows[0]['announce']] : [])),
      true,
    );
    const outcomes: ItemOutcome<StartOutcome>[] = new Array(batch.length);
    order.forEach(({ r, i }, k) => {
      try {
        outcomes[i] = { ok: true, value: startOutcome(r, list[2 * k + 1]?.rows[0] as StartRow | undefined) };
      } catch (error) {
        outcomes[i] = { ok: false, error };
      }
    });
    return outcomes;
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
   * Back to queued after the router did not take the job, unless results of
   * that job arrived meanwhile (then it did run). The job id stays, so a late
   * result of a job the router did queue after all is still applied. A start
   * counted in `quotaPeriod` is given back in the same statement, so the
   * count follows the execution exactly (null: it was not counted).
   */
  async revertStart(id: number, jobId: string, at: Date, quotaPeriod: string | null): Promise<boolean> {
    const rows = await this.rows<{ id: number }>(
      `WITH reverted AS (
         UPDATE workflow_executions
            SET status = 'queued', started_at = NULL, last_progress_at = NULL, deadline_at = NULL, updated_at = now()
          WHERE id = $1 AND status = 'running' AND job_id = $2 AND last_progress_at = $3
          RETURNING id, user_id
       ), ${startGiveBackCte('$4')}
       SELECT id FROM reverted`,
      [id, jobId, at, quotaPeriod],
    );
    return rows.length > 0;
  }

  /**
   * queued, running or awaiting input → cancelled, for the owner only, in
   * one guarded UPDATE (a result racing it either lands first or is ignored,
   * since a terminal execution never changes). The pause token is cleared.
   */
  async cancel(id: number, userId: number): Promise<CancelOutcome> {
    const rows = await this.rows<{ from: ExecutionStatus; completedAt: Date }>(
      `UPDATE workflow_executions AS e
          SET status = 'cancelled', completed_at = now(), updated_at = now(),
              correlation_token_hash = NULL, correlation_token_sealed = NULL
         FROM (SELECT id, status FROM workflow_executions WHERE id = $1 FOR UPDATE) AS before
        WHERE e.id = before.id AND e.user_id = $2 AND e.status IN ('queued', 'running', 'awaiting_user_input')
        RETURNING before.status AS "from", e.completed_at AS "completedAt"`,
      [id, userId],
    );
    const done = rows[0];
    if (done) return { outcome: 'cancelled', from: done.from, completedAt: done.completedAt };
    const current = await this.rows<{ status: ExecutionStatus; userId: number }>('SELECT status, user_id AS "userId" FROM workflow_executions WHERE id = $1', [id]);
    const row = current[0];
    return row && row.userId === userId ? { outcome: 'terminal', status: row.status } : { outcome: 'missing' };
  }

  /**
   * A start that was refused after its record was created (router down,
   * limit reached): the record is marked failed with the reason, so no
   * `queued` execution is left behind (issue #15). Only a still-queued row changes.
   */
  async failUnstarted(id: number, reason: string): Promise<boolean> {
    const rows = await this.rows<{ id: number }>(
      `UPDATE workflow_executions SET status = 'failed', error = $2, error_type = 'not_started', completed_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'queued' RETURNING id`,
      [id, reason.slice(0, 10000)],
    );
    return rows.length > 0;
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
                resume_job = jsonb_build_object('node_id', awaiting_node, 'payload', $5::jsonb), resumed_at = $3, updated_at = now()
          WHERE id = $1 AND status = 'awaiting_user_input'`,
        [id, changes.jobId, changes.at, changes.deadlineAt, JSON.stringify(changes.payload)],
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
              resume_count = $9, job_id = $10, last_sequence = $11, last_progress_at = $12, deadline_at = $13,
              resume_job = NULL, resumed_at = NULL, updated_at = now()
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
   * Applies one results message: a guarded UPDATE (same job, not terminal, no
   * lower rank, a higher sequence when both have one) and, only when it
   * matched, the step rows, in one statement. When the message reports a
   * step cost, total_cost is recomputed in a second statement of the same
   * transaction (it needs a snapshot that sees the upserted steps); without
   * costs the upsert cannot change the sum, so it is skipped.
   */
  async applyResult(u: ExecutionResultUpdate, sealedToken: string | null, tokenHash: string | null): Promise<ApplyResultOutcome> {
    const values = applyResultValues(u, sealedToken, tokenHash);
    const costs = u.steps.some((s) => s.cost !== null);
    if (costs) return withPgTransaction(this.ds, (tx) => this.applyResultIn(tx, u, sealedToken, tokenHash));
    const applied = (await this.prepared<{ status: ExecutionStatus; userId: number }>('wfx_apply_result', APPLY_RESULT_SQL, values))[0];
    if (applied) return { outcome: 'applied', status: applied.status, userId: applied.userId };
    const current = await this.rows<{ status: ExecutionStatus }>('SELECT status FROM workflow_executions WHERE id = $1', [u.executionId]);
    return current[0] ? { outcome: 'ignored', status: current[0].status } : { outcome: 'unknown' };
  }

  /**
   * `applyResult` inside the caller's transaction `tx` (a batch of results
   * is applied in one): the same guarded statement, then, when it applied a
   * step with a cost, the execution's total; its effects commit with `tx`.
   */
  async applyResultIn(tx: PgTransaction, u: ExecutionResultUpdate, sealedToken: string | null, tokenHash: string | null): Promise<ApplyResultOutcome> {
    const result = await tx.query({ name: 'wfx_apply_result', text: APPLY_RESULT_SQL, values: applyResultValues(u, sealedToken, tokenHash) });
    const applied = result.rows[0] as { status: ExecutionStatus; userId: number } | undefined;
    if (applied) {
      if (u.steps.some((s) => s.cost !== null)) await updateTotalCosts(tx, [u.executionId]);
      return { outcome: 'applied', status: applied.status, userId: applied.userId };
    }
    const current = (await tx.query({ name: 'wfx_status_only', text: 'SELECT status FROM workflow_executions WHERE id = $1', values: [u.executionId] })).rows[0] as
      { status: ExecutionStatus } | undefined;
    return current ? { outcome: 'ignored', status: current.status } : { outcome: 'unknown' };
  }

  /**
   * Locks the rows of these executions in id order inside `tx`, before a
   * batch of results updates them: two processes applying batches with the
   * same executions in other orders (or in other rounds) then queue on the
   * first shared row instead of each holding one the other waits for
   * (40P01). One statement; a batch of one execution needs none.
   */
  async lockForResults(tx: PgTransaction, executionIds: readonly number[]): Promise<void> {
    const ids = [...new Set(executionIds)];
    if (ids.length < 2) return;
    await tx.query({ name: 'wfx_lock_results', text: 'SELECT id FROM workflow_executions WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE', values: [ids] });
  }

  /**
   * Many results, at most one per execution, in one statement inside `tx`
   * (APPLY_RESULTS_SQL, guarded like `applyResult`), then one update of the
   * totals of the executions where an applied step had a cost. Answers the
   * outcomes in the order of `rows`.
   */
  async applyResultsIn(tx: PgTransaction, rows: readonly { u: ExecutionResultUpdate; sealedToken: string | null; tokenHash: string | null }[]): Promise<ApplyResultOutcome[]> {
    const json = resultRowsJson(rows);
    const found = (await tx.query({ name: 'wfx_apply_results', text: APPLY_RESULTS_SQL, values: [json, rows.map(({ u }) => u.executionId)] })).rows as unknown as AppliedRow[];
    const byId = new Map(found.map((r) => [r.executionId, r]));
    const costed = rows.filter(({ u }) => byId.get(u.executionId)?.applied && u.steps.some((st) => st.cost !== null)).map(({ u }) => u.executionId);
    if (costed.length) await updateTotalCosts(tx, costed);
    return appliedOutcomes(rows, found);
  }

  /**
   * `lockForResults` then `applyResultsIn` for results of at least two
   * executions, at most one each, none with a step cost (so no totals to
   * recompute): the row lock (id order) and the apply statement sent as one
   * simple-protocol message, which PostgreSQL runs as one implicit
   * transaction, so one round trip and one commit instead of four round trips
   * (BEGIN, lock, apply, COMMIT) with the connection idle in its transaction
   * between them. The apply statement is APPLY_RESULTS_SQL prepared once per
   * connection (APPLY_RESULTS_STATEMENT); nothing is applied when any part
   * fails. Its changes are announced after the commit (`announce`), not by the
   * trigger. Answers the outcomes in the order of `rows`.
   */
  async applyResultsAtOnce(rows: readonly { u: ExecutionResultUpdate; sealedToken: string | null; tokenHash: string | null }[]): Promise<ApplyResultOutcome[]> {
    const ids = rows.map(({ u }) => u.executionId);
    if (new Set(ids).size !== ids.length || ids.length < 2) throw new Error('applyResultsAtOnce takes results of at least two executions, one each');
    if (rows.some(({ u }) => u.steps.some((st) => st.cost !== null))) throw new Error('applyResultsAtOnce takes no step costs');
    const json = resultRowsJson(rows);
    const idList = `'{${[...ids]
      .sort((a, b) => a - b)
      .map(sqlInt)
      .join(',')}}'::int[]`;
    // CALLER_ANNOUNCES in the lock statement: no statement more; the applied rows' payloads are announced after the commit.
    const message = `SELECT id, ${CALLER_ANNOUNCES} FROM workflow_executions WHERE id = ANY(${idList}) ORDER BY id FOR UPDATE;
      EXECUTE ${APPLY_RESULTS_STATEMENT.name}(${sqlLiteral(json)}, ${idList})`;
    const list = await querySqlPrepared(this.ds, APPLY_RESULTS_STATEMENT, message);
    if (list.length !== 2) throw new Error(`a results message answered ${list.length} results, not 2`);
    const found = list[1]!.rows as unknown as AppliedRow[];
    this.announce(found.flatMap((r) => (r.announce === null ? [] : [r.announce])));
    return appliedOutcomes(rows, found);
  }

  /**
   * Fails every running execution whose lease expired: no progress for
   * `leaseSeconds`, or (with a deadline) 60 s past the deadline. One UPDATE,
   * so replicas running it together fail each execution once; it locks the
   * due rows in id order first, the order a results batch locks them in.
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
        FROM (SELECT id FROM workflow_executions
               WHERE status = 'running'
                 AND (COALESCE(last_progress_at, started_at, created_at) < now() - make_interval(secs => $1)
                      OR (deadline_at IS NOT NULL AND deadline_at + interval '60 seconds' < now()))
               ORDER BY id FOR UPDATE) AS due
        WHERE e.id = due.id AND e.status = 'running'
        RETURNING e.id, floor(extract(epoch FROM now() - COALESCE(e.last_progress_at, e.started_at, e.created_at)))::int AS "idleSeconds"`,
      [leaseSeconds],
    )) as [{ id: number; idleSeconds: number }[], number];
    return rows[0];
  }

  private async lockForTransition(m: EntityManager, id: number, userId: number): Promise<WorkflowExecutionEntity | null> {
    await m.query('SELECT pg_advisory_xact_lock($1, $2)', [USER_START_LOCK, userId]);
    return m.getRepository(WorkflowExecutionEntity).createQueryBuilder('e').setLock('pessimistic_write').where('e.id = :id', { id }).getOne();
  }

  private async countRunning(m: EntityManager, userId: number): Promise<number> {
    const rows = (await m.query("SELECT count(*)::int AS n FROM workflow_executions WHERE user_id = $1 AND status = 'running'", [userId])) as { n: number }[];
    return rows[0]?.n ?? 0;
  }
}

/** A row of APPLY_RESULTS_SQL's answer. */
interface AppliedRow {
  executionId: number;
  status: ExecutionStatus | null;
  userId: number | null;
  applied: boolean;
  current: ExecutionStatus | null;
  /** The applied row's notification payload, when the transaction set CALLER_ANNOUNCES. */
  announce: string | null;
}

/** The rows of APPLY_RESULTS_SQL's $1, as JSON: each result's fields under APPLY_RESULTS_KEYS. */
function resultRowsJson(rows: readonly { u: ExecutionResultUpdate; sealedToken: string | null; tokenHash: string | null }[]): string {
  return JSON.stringify(
    rows.map(({ u, sealedToken, tokenHash }) => {
      const values = applyResultFields(u, sealedToken, tokenHash);
      return Object.fromEntries(APPLY_RESULTS_KEYS.map((k, i) => [k, values[i] ?? null]));
    }),
  );
}

/** The outcome of each of `rows` from APPLY_RESULTS_SQL's answer. */
function appliedOutcomes(rows: readonly { u: ExecutionResultUpdate }[], found: AppliedRow[]): ApplyResultOutcome[] {
  const byId = new Map(found.map((r) => [Number(r.executionId), r]));
  return rows.map(({ u }): ApplyResultOutcome => {
    const r = byId.get(u.executionId);
    if (r?.applied && r.status && r.userId !== null) return { outcome: 'applied', status: r.status, userId: r.userId };
    return r?.current ? { outcome: 'ignored', status: r.current } : { outcome: 'unknown' };
  });
}

/** APPLY_RESULTS_SQL as an SQL-level prepared statement ($1 the rows as jsonb, $2 their execution ids), for applyResultsAtOnce. */
const APPLY_RESULTS_STATEMENT: SqlPreparedStatement = {
  name: 'wfx_apply_results_v2',
  text: `PREPARE wfx_apply_results_v2(jsonb, int[]) AS ${APPLY_RESULTS_SQL}`,
};

/** Row count of an UPDATE ... RETURNING run through DataSource.query (TypeORM returns [rows, count] for postgres). */
function affected(result: [unknown[], number] | unknown[]): number {
  if (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[1];
  return result.length;
}

/** The sixteen fields of a result, in the order of APPLY_RESULT_SQL's $1..$16 and APPLY_RESULTS_KEYS. */
function applyResultFields(u: ExecutionResultUpdate, sealedToken: string | null, tokenHash: string | null): unknown[] {
  return [
    u.executionId,
    u.jobId,
    u.status,
    u.rank,
    u.taskStates,
    u.outputs,
    u.error,
    u.errorType,
    u.failedNode,
    u.awaitingNode,
    u.awaitingInputSchema,
    tokenHash,
    sealedToken,
    u.awaitingSince,
    u.sequence,
    u.steps,
  ];
}

/** Parameters of APPLY_RESULT_SQL: the fields, objects and arrays (the jsonb ones) as JSON text. */
function applyResultValues(u: ExecutionResultUpdate, sealedToken: string | null, tokenHash: string | null): unknown[] {
  return applyResultFields(u, sealedToken, tokenHash).map((v) => (v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v));
}

/** Sets each execution's total cost to the sum of its steps' costs, inside `tx`. */
async function updateTotalCosts(tx: PgTransaction, executionIds: number[]): Promise<void> {
  await tx.query({
    name: 'wfx_total_costs',
    text: `UPDATE workflow_executions e
              SET total_cost = COALESCE((SELECT sum(cost) FROM workflow_execution_steps WHERE execution_id = e.id), 0)
            WHERE e.id = ANY($1::int[])`,
    values: [executionIds],
  });
}

/** The last statement's row of one start (see startQueuedSql). */
interface StartRow {
  /** Null: no such execution of this owner. */
  status: ExecutionStatus | null;
  running: number;
  started: boolean;
  activityId: number | null;
  workflowDefinition: Record<string, unknown> | null;
  inputs: Record<string, unknown> | null;
  stored_empty: boolean | null;
  startedAt: Date | null;
  deadlineAt: Date | null;
  dataShieldPolicy: Record<string, unknown> | null;
  /** The start itself would have gone ahead (queued, under the running cap, inputs validated). */
  eligible: boolean;
  /** The quota columns, null when no quota was given. */
  quota_used: number | null;
  quota_execs: number | null;
  quota_llm: string | null;
  quota_llm_used: string | null;
  quota_counted: number | null;
}

const numOrNull = (v: string | number | null): number | null => (v === null ? null : Number(v));

/** What the start's statement found of the quotas; null when no quota was given. */
function quotaFound(row: StartRow): StartQuotaFound | null {
  if (row.quota_used === null) return null;
  return {
    executionsMonthly: numOrNull(row.quota_execs),
    llmCostMonthly: numOrNull(row.quota_llm),
    llmUsed: numOrNull(row.quota_llm_used),
    used: Number(row.quota_used),
    counted: numOrNull(row.quota_counted),
  };
}

/** Whether a start that did not go ahead was refused by a quota (the LLM cost, the count before it, or the guard alone). */
function quotaRefused(found: StartQuotaFound, eligible: boolean): boolean {
  if (found.llmCostMonthly !== null && found.llmUsed !== null && found.llmUsed >= found.llmCostMonthly) return true;
  if (found.executionsMonthly !== null && found.used >= found.executionsMonthly) return true;
  // Eligible and not started: only the guarded count can have refused it (counted elsewhere in between).
  return eligible;
}

/** What one start's row says: started, or why not (a quota first, as when the quota was taken before the start). */
function startOutcome(r: StartRequest, row: StartRow | undefined): StartOutcome {
  if (!row) throw new Error(`execution ${r.id}: the start statement answered no row`);
  const quota = quotaFound(row);
  if (row.started && row.activityId !== null && row.workflowDefinition && row.inputs) {
    return {
      outcome: 'started',
      row: {
        id: r.id,
        activityId: row.activityId,
        userId: r.userId,
        workflowDefinition: row.workflowDefinition,
        inputs: row.inputs,
        startedAt: row.startedAt,
        deadlineAt: row.deadlineAt,
        dataShieldPolicy: row.dataShieldPolicy,
      },
      quota,
    };
  }
  if (quota && quotaRefused(quota, row.eligible)) return { outcome: 'quota', found: quota };
  if (row.status === null) return { outcome: 'missing' };
  if (row.status !== 'queued') return { outcome: 'not_queued', status: row.status };
  if (row.running >= r.maxRunning) return { outcome: 'limit', running: row.running };
  if (r.inputs === null && row.stored_empty) return { outcome: 'unvalidated' };
  throw new Error(`execution ${r.id} neither started nor refused`);
}
