import { workflowJobId, type RetryOrigin, type WorkflowJobPayload } from '@docflow/contracts';
import {
  isPlainObject,
  jsonSchemaProblem,
  MISSING_INPUT_SCHEMA_MESSAGE,
  normalizeDefinition,
  validateAgainstSchema,
  validateDefinition,
  validateInputs,
  type WorkflowDefinition,
} from '@docflow/workflow';
import { signJobUser } from '@docflow/internal-auth';
import type { ItemOutcome, PgTransaction } from '@docflow/persistence';
import { BadRequestError, ConflictError, errorMessage, isDatabaseConnectionError, Logger, NotFoundError, TooManyRequestsError } from '@docflow/service-kit';
import type { ActivitiesRepository, ActivityForExecution } from '../activities/activities.repository';
import { ACTIVITY_NOT_FOUND, canRead, type Caller } from '../activities/activities.service';
import type { AuditLog, StartQuotaFound, StartQuotaTerms } from '../../identity';
import type { RouterClient } from '../../platform';
import { bindCredentials, nodeCredentialId, withoutCredentialIds, type CredentialSource } from './credential-binding';
import { correlationTokenMatches, type CorrelationTokenSealer } from './correlation-token';
import { toExecutionView, toStatusView, toTimelineView, type ExecutionStatusView, type ExecutionView, type TimelineView } from './execution-views';
import type { NewExecution } from './workflow-executions.dto';
import type { WorkflowExecutionEntity } from './workflow-execution.entity';
import { isTerminalExecutionStatus, type ExecutionStatus } from './execution-status';
import { UNREAD_WAIT_MAX_MS, type ExecutionWatch } from './execution-watch';
import { ActivityDefinitionCache } from './activity-definitions';

/** A long poll ends when the execution is terminal or waits for its user. */
export function isSettledForPolling(status: ExecutionStatus): boolean {
  return status === 'awaiting_user_input' || isTerminalExecutionStatus(status);
}
import type { ExecutionStatusRow, NewExecutionRow, ResumedRow, StartedRow, StartOutcome, WorkflowExecutionsRepository } from './workflow-executions.repository';

export const EXECUTION_NOT_FOUND = 'Workflow execution not found';

/** The monthly quotas a start counts against (identity's QuotasService; issue 18), counted in the start's own statement. */
export interface ExecutionQuotas {
  /** The period and the configured limits a start is counted on now. */
  startTerms(): StartQuotaTerms;
  /** The 429 (audited) of a start its statement refused for a quota. */
  startRefusal(userId: number, period: string, found: StartQuotaFound): Promise<Error>;
  /** Mails a quota's 80 % warning once a month; never throws. */
  checkWarnings(userId: number): Promise<void>;
}

export interface WorkflowExecutionsDeps {
  repo: WorkflowExecutionsRepository;
  activities: ActivitiesRepository;
  router: RouterClient;
  sealer: CorrelationTokenSealer;
  logger: Logger;
  audit: AuditLog;
  /** The owner's credentials that nodes name (credential_id): checked at start, opened when the node runs. */
  credentials: CredentialSource;
  /** MAX_RUNNING_EXECUTIONS_PER_USER: running executions a user may have when starting one by hand, a schedule or an event (default 10). */
  maxRunningPerUser: number;
  /** WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER: the same cap for webhook-triggered starts (spec 8: 10). */
  maxRunningPerUserForWebhooks: number;
  /** Wakes long polls (GET /workflow-executions/{id}/status?wait=) when an execution changes. */
  watch: ExecutionWatch;
  /** INTERNAL_SERVICE_JWT_SECRET: signs the user each job acts for (processors trust no other). */
  jobUserSecret: string;
  quotas?: ExecutionQuotas;
}

/** Who reads an execution: a user (owner, or a super administrator) or a webhook polling grant. */
export type ExecutionReader = { user: Caller } | { polling: { executionId: number; userId: number } };

export interface StartResponse {
  success: true;
  message: string;
  execution_id: number;
  job_id: string;
  data: { id: number; status: 'running'; started_at: string | null };
}

function optionalObject(fields: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw BadRequestError.withErrors(`${key} must be an object`, [`${key} must be an object`]);
  return value;
}

/** Inputs of an execute call: `{inputs}`, or `{document_url (required), mime_type}` which become inputs (spec 4.8). */
export function executeInputsOf(fields: Record<string, unknown>): Record<string, unknown> {
  const inputs = optionalObject(fields, 'inputs') ?? {};
  if (!('document_url' in fields) && !('mime_type' in fields)) return inputs;
  const url = fields['document_url'];
  const mime = fields['mime_type'];
  const errors: string[] = [];
  if (typeof url !== 'string' || url.trim() === '') errors.push('document_url is required and must be a non-empty string');
  if (mime !== undefined && mime !== null && typeof mime !== 'string') errors.push('mime_type must be a string');
  if (errors.length) throw BadRequestError.withErrors('Invalid execute request', errors);
  return { ...inputs, document_url: url, ...(typeof mime === 'string' ? { mime_type: mime } : {}) };
}

function inputSchemaError(schema: unknown): string | undefined {
  if (!isPlainObject(schema)) return 'input_schema must be a JSON Schema object';
  const problem = jsonSchemaProblem(schema);
  return problem === undefined ? undefined : `input_schema is not a valid JSON Schema: ${problem}`;
}

function deadlineFrom(activity: Pick<ActivityForExecution, 'executionDeadlineSeconds'> | null, at: Date): Date | null {
  const seconds = activity?.executionDeadlineSeconds;
  return seconds ? new Date(at.getTime() + seconds * 1000) : null;
}

/**
 * What a retry keeps of a failed execution: the nodes whose task state is
 * `completed`, with their outputs (for the record) and, for the job, each
 * node's output and times.
 */
export function completedNodesOf(
  taskStates: Record<string, unknown>,
  outputs: Record<string, unknown>,
): { taskStates: Record<string, unknown>; outputs: Record<string, unknown>; completedNodes: Record<string, unknown> } {
  const kept = { taskStates: {} as Record<string, unknown>, outputs: {} as Record<string, unknown>, completedNodes: {} as Record<string, unknown> };
  for (const [nodeId, state] of Object.entries(taskStates)) {
    if (!isPlainObject(state) || state['status'] !== 'completed') continue;
    const output = nodeId in outputs ? outputs[nodeId] : (state['result'] ?? null);
    kept.taskStates[nodeId] = state;
    kept.outputs[nodeId] = output;
    kept.completedNodes[nodeId] = { output, started_at: state['started_at'] ?? null, completed_at: state['completed_at'] ?? null };
  }
  return kept;
}

/** The normalised definition an execution stores, or 400: an input schema that can check inputs, and a valid definition. */
export function checkedDefinition(given: Record<string, unknown>): WorkflowDefinition {
  const definition = normalizeDefinition(given as WorkflowDefinition);
  if (definition.input_schema === undefined || definition.input_schema === null) {
    throw BadRequestError.withErrors(MISSING_INPUT_SCHEMA_MESSAGE, [MISSING_INPUT_SCHEMA_MESSAGE]);
  }
  // An unusable schema would refuse every start of the execution.
  const schemaError = inputSchemaError(definition.input_schema);
  if (schemaError !== undefined) throw BadRequestError.withErrors('The workflow definition has an unusable input schema', [schemaError]);
  // The one full validation of the definition a run executes, where its snapshot is stored: the router
  // and the client do not look inside it again (docs/decisions.md, "Workflow definitions: validated where stored").
  const problems = validateDefinition(withoutCredentialIds(definition));
  if (problems.length) throw BadRequestError.withErrors('Invalid workflow definition', problems);
  return definition;
}

function checkInputs(definition: WorkflowDefinition, inputs: Record<string, unknown>): void {
  const errors = validateInputs(definition.input_schema, inputs);
  if (errors.length) throw BadRequestError.withErrors('Invalid inputs', errors);
}

/** Executions (spec 3.1, 4.8): create, start, read, resume, timeline, cancel, retry. */
/** Seconds a refused start keeps trying to put its record back to `queued` while the database is down. */
const REVERT_RETRY_ATTEMPTS = 60;

/** The reason a long poll's round stops its wait with: a reason of our own, since a default one builds a DOMException (with its stack) each round. */
const STOPPED = new Error('wait over');

export class WorkflowExecutionsService {
  /** Checked definitions of activities by row version, for creates (see createFromCache). */
  private readonly activityDefinitions = new ActivityDefinitionCache();

  constructor(private readonly deps: WorkflowExecutionsDeps) {}

  /**
   * Records a queued execution of a visible activity with a normalised
   * snapshot of the given (or the activity's) definition. Inputs given here
   * are checked against its input_schema; inputs may also come with execute.
   */
  async create(user: Caller, { activityId, definition: given, inputs }: NewExecution): Promise<{ id: number; status: 'queued'; activity: number; started_at: null }> {
    const row = (given === undefined ? await this.createFromCache(user, activityId, inputs) : null) ?? (await this.createFromRead(user, activityId, given, inputs));
    this.deps.audit.record({ action: 'workflow.execution.created', actorUserId: user.id, details: { execution_id: row.id, activity_id: activityId } });
    return { id: row.id, status: 'queued', activity: activityId, started_at: null };
  }

  /**
   * A create of the activity's own definition as checked for an earlier
   * create (ActivityDefinitionCache), inserted only while the activity's row
   * has not changed since: no read of the activity, no validation of its
   * definition. Null (and the entry dropped) when there is no entry, the
   * caller may not read the activity as cached, the inputs do not pass, or
   * the row changed: `createFromRead` then decides as it always did, on a
   * fresh read.
   */
  private async createFromCache(user: Caller, activityId: number, inputs: Record<string, unknown> | undefined): Promise<{ id: number } | null> {
    const cached = this.activityDefinitions.get(activityId);
    if (!cached || !canRead(user, cached)) return null;
    if (inputs !== undefined && validateInputs(cached.definition.input_schema, inputs).length > 0) return null;
    const row = await this.deps.repo.insertIfActivityVersion({ activityId, userId: user.id, definitionJson: cached.definitionJson, inputs: inputs ?? {} }, cached.version);
    if (!row) this.activityDefinitions.drop(activityId);
    return row;
  }

  private async createFromRead(user: Caller, activityId: number, given: Record<string, unknown> | undefined, inputs: Record<string, unknown> | undefined): Promise<{ id: number }> {
    const activity = await this.deps.activities.findForExecution(activityId);
    if (!activity || !canRead(user, activity)) throw new NotFoundError(ACTIVITY_NOT_FOUND);
    const definition = checkedDefinition(given ?? activity.workflowDefinition);
    if (given === undefined) {
      this.activityDefinitions.set({ activityId, version: activity.version, level: activity.level, ownerId: activity.ownerId, definition, definitionJson: JSON.stringify(definition) });
    }
    if (inputs !== undefined) checkInputs(definition, inputs);
    return this.deps.repo.insert({ activityId, userId: user.id, workflowDefinition: definition, inputs: inputs ?? {} });
  }

  /**
   * `create` for several executions of activities' own definitions at once
   * (the event bus's dispatch batches): one read and one validation of the
   * definition per activity, the inputs checked per execution, and one
   * INSERT of every accepted one in a transaction that also runs `record`
   * (the caller's durable note of them), so the executions and the note
   * commit together or not at all. Answers one outcome per item, in order:
   * a refused item (404, 400) has its error; a failed transaction throws.
   */
  async createMany(
    items: readonly { user: Caller; activityId: number; inputs: Record<string, unknown> }[],
    record: (tx: PgTransaction, created: { index: number; id: number }[]) => Promise<void>,
  ): Promise<ItemOutcome<{ id: number }>[]> {
    const outcomes: ItemOutcome<{ id: number }>[] = new Array(items.length);
    const definitions = new Map<number, Promise<{ activity: ActivityForExecution | null; definition?: WorkflowDefinition; error?: unknown }>>();
    const accepted: { index: number; row: Omit<NewExecutionRow, 'retry'> }[] = [];
    for (const [index, { user, activityId, inputs }] of items.entries()) {
      let checked = definitions.get(activityId);
      if (!checked) {
        checked = this.deps.activities.findForExecution(activityId).then((activity) => {
          try {
            return { activity, definition: activity ? checkedDefinition(activity.workflowDefinition) : undefined };
          } catch (error) {
            return { activity, error };
          }
        });
        definitions.set(activityId, checked);
      }
      const { activity, definition, error } = await checked;
      try {
        if (!activity || !canRead(user, activity)) throw new NotFoundError(ACTIVITY_NOT_FOUND);
        if (error !== undefined || !definition) throw error;
        checkInputs(definition, inputs);
        accepted.push({ index, row: { activityId, userId: user.id, workflowDefinition: definition, inputs } });
      } catch (err) {
        outcomes[index] = { ok: false, error: err };
      }
    }
    if (accepted.length > 0) {
      const created = await this.deps.repo.createManyWith(
        accepted.map((a) => a.row),
        (tx, ids) =>
          record(
            tx,
            ids.map((id, k) => ({ index: accepted[k]!.index, id })),
          ),
      );
      created.forEach((id, k) => {
        const { index, row } = accepted[k]!;
        outcomes[index] = { ok: true, value: { id } };
        this.deps.audit.record({ action: 'workflow.execution.created', actorUserId: row.userId, details: { execution_id: id, activity_id: row.activityId } });
      });
    }
    return outcomes;
  }

  /**
   * queued → running: checks the inputs, takes a running slot (at most
   * maxRunningPerUser per user, counted under a per-user lock), then submits
   * job `wf_<id>`. When the router does not take it, the execution goes back
   * to queued and the caller gets 503.
   */
  async execute(user: Caller, id: number, fields: Record<string, unknown>): Promise<StartResponse> {
    return this.start(user, id, fields, undefined);
  }

  /**
   * Create and start in one go (webhooks, schedules, retries). A start
   * refused after the record was created (router down, running limit) marks
   * that record failed with the reason before the refusal reaches the
   * caller, so no `queued` execution is left behind (issue #15 item 6).
   */
  async createAndStart(user: Caller, execution: NewExecution, trigger: 'webhook' | 'other' = 'other'): Promise<StartResponse> {
    const created = await this.create(user, execution);
    return this.startCreated(user, created.id, undefined, trigger === 'webhook' ? this.deps.maxRunningPerUserForWebhooks : this.deps.maxRunningPerUser);
  }

  /**
   * Starts an execution a webhook trigger accepted before starting it (queued, `start_pending`;
   * docs/decisions.md, "Webhook triggers accepted before their start"), under the webhook running
   * cap. Unlike createAndStart, a refusal leaves the record as it is: the caller decides whether to
   * try again (router down, cap) or to mark it failed (`failUnstarted`).
   */
  async startAccepted(user: Caller, id: number): Promise<StartResponse> {
    return this.start(user, id, {}, undefined, this.deps.maxRunningPerUserForWebhooks);
  }

  /**
   * Submits again the job of an execution a start moved to `running` whose job may never have reached the
   * router (its process died between the start's commit and the submission; WebhookAcceptor.sweep finds
   * them). Safe when it did: the router answers 409 for a job it holds, or sends a still-queued one again,
   * whose repeat delivery has one effect.
   */
  async resubmitStarted(row: StartedRow, jobId: string): Promise<'queued' | 'duplicate'> {
    return this.deps.router.submitWorkflowJob({ jobId, payload: await this.payloadOf(row, jobId) });
  }

  /**
   * Submits again the job of a resume whose process may have died between the resume's commit and the
   * submission (WebhookAcceptor.sweep finds them): the same job id, and the payload built from what the resume
   * kept on the row. Safe when the job did reach the router, as resubmitStarted is.
   */
  async resubmitResumed(row: ResumedRow): Promise<'queued' | 'duplicate'> {
    return this.deps.router.submitWorkflowJob({ jobId: row.jobId, payload: await this.resumePayloadOf(row, row.jobId, row.resumeJob) });
  }

  private async startCreated(user: Caller, id: number, retryOf: RetryOrigin | undefined, maxRunning = this.deps.maxRunningPerUser): Promise<StartResponse> {
    try {
      return await this.start(user, id, {}, retryOf, maxRunning);
    } catch (err) {
      const reason = `Not started: ${errorMessage(err)}`;
      const failed = await this.deps.repo.failUnstarted(id, reason);
      this.deps.logger.warn('execution not started; its record is marked failed', { executionId: id, markedFailed: failed, error: reason });
      throw err;
    }
  }

  /**
   * POST /workflow-executions/{id}/cancel (issue #15): the owner's queued,
   * running or paused execution becomes `cancelled` at once; a processor
   * running it stops at its next step boundary and any late result is
   * ignored (a terminal execution never changes). Others get 404; an
   * execution already finished gets 409.
   */
  async cancel(user: Caller, id: number): Promise<{ id: number; status: 'cancelled'; previous_status: ExecutionStatus; completed_at: string }> {
    const outcome = await this.deps.repo.cancel(id, user.id);
    switch (outcome.outcome) {
      case 'missing':
        throw new NotFoundError(EXECUTION_NOT_FOUND);
      case 'terminal':
        throw new ConflictError(`Execution ${id} is ${outcome.status}; only a queued, running or paused execution can be cancelled`, { status: outcome.status });
      case 'cancelled':
        break;
      default: {
        const never: never = outcome;
        throw new Error(`unexpected cancel outcome ${JSON.stringify(never)}`);
      }
    }
    this.deps.logger.info('workflow execution cancelled', { executionId: id, from: outcome.from });
    this.deps.audit.record({ action: 'workflow.execution.cancelled', actorUserId: user.id, details: { execution_id: id, previous_status: outcome.from } });
    return { id, status: 'cancelled', previous_status: outcome.from, completed_at: outcome.completedAt.toISOString() };
  }

  /**
   * POST /workflow-executions/{id}/retry (issue #15): a failed execution
   * runs again as a new execution (`retry_of` names the failed one) with the
   * same definition snapshot and inputs; the nodes that completed keep their
   * outputs and are not run again, the run starts from the failed node.
   */
  async retry(user: Caller, id: number): Promise<StartResponse & { retry_of: number }> {
    const failed = await this.findOwned(user, id);
    if (failed.status !== 'failed') {
      throw new ConflictError(`Execution ${id} is ${failed.status}; only a failed execution can be retried`, { status: failed.status });
    }
    const kept = completedNodesOf(failed.taskStates as Record<string, unknown>, failed.outputs ?? {});
    const row = await this.deps.repo.insert({
      activityId: failed.activityId,
      userId: user.id,
      workflowDefinition: failed.workflowDefinition,
      inputs: failed.inputs,
      retry: { of: id, outputs: kept.outputs, taskStates: kept.taskStates },
    });
    this.deps.audit.record({ action: 'workflow.execution.created', actorUserId: user.id, details: { execution_id: row.id, activity_id: failed.activityId, retry_of: id } });
    const started = await this.startCreated(user, row.id, { execution_id: id, completed_nodes: kept.completedNodes });
    return { ...started, retry_of: id };
  }

  /**
   * A start, counted against the user's monthly quotas (refused with 429
   * past them) in the start's own statement: the count commits with the
   * start, and a start put back to queued (router refused the job) gives it
   * back in the statement that puts it back (issue #16, one commit per start).
   */
  private async start(user: Caller, id: number, fields: Record<string, unknown>, retryOf: RetryOrigin | undefined, maxRunning = this.deps.maxRunningPerUser): Promise<StartResponse> {
    const quota = this.deps.quotas?.startTerms() ?? null;
    let added: Record<string, unknown> | undefined;
    let bodyError: unknown;
    try {
      added = executeInputsOf(fields);
    } catch (err) {
      bodyError = err;
    }
    const at = new Date();
    const jobId = workflowJobId(id);
    const start = { id, userId: user.id, jobId, at, maxRunning, quota };
    // Inputs stored at create were validated there: without new ones, the start trusts them (one round trip).
    let outcome = added !== undefined && Object.keys(added).length === 0 ? await this.startOrRevertLater({ ...start, inputs: null }) : { outcome: 'unvalidated' as const };
    if (outcome.outcome === 'quota') throw await this.quotaRefusal(user, quota, outcome.found);
    if (outcome.outcome === 'unvalidated') {
      const current = await this.deps.repo.findStartCandidate(id);
      if (!current || current.userId !== user.id) throw new NotFoundError(EXECUTION_NOT_FOUND);
      if (bodyError !== undefined || added === undefined) throw bodyError;
      const inputs = { ...current.inputs, ...added };
      if (current.status !== 'queued') throw this.notQueued(current);
      const errors = validateInputs(current.inputSchema, inputs);
      if (errors.length) throw BadRequestError.withErrors('Invalid inputs', errors);
      outcome = await this.startOrRevertLater({ ...start, inputs });
      if (outcome.outcome === 'quota') throw await this.quotaRefusal(user, quota, outcome.found);
    }
    const { row, counted } = this.started(id, outcome, maxRunning);

    try {
      const payload = await this.payloadOf(row, jobId);
      await this.deps.router.submitWorkflowJob({ jobId, payload: retryOf ? { ...payload, retry_of: retryOf } : payload });
    } catch (err) {
      let reverted: boolean;
      this.deps.watch.forgetStart(id);
      try {
        reverted = await this.deps.repo.revertStart(id, jobId, at, quota?.period ?? null);
      } catch (revertError) {
        // The database went away too (a restart): put the record back once it answers, then refuse.
        if (!isDatabaseConnectionError(revertError)) throw revertError;
        this.revertStartLater(id, jobId, at, quota?.period ?? null);
        throw err;
      }
      this.deps.logger.warn('workflow job not submitted', { executionId: id, jobId, revertedToQueued: reverted, error: errorMessage(err) });
      // Not reverted: results of this job arrived meanwhile, so the router did take it.
      if (reverted) throw err;
    }
    // The start's announcement (sent after its commit, not by the trigger) goes before the answer, as the trigger's
    // NOTIFY did: a long poll sent after this answer is not woken by the start (docs/decisions.md, "Execution changes
    // announced after their commit"). It went while the job was submitted, so this seldom waits.
    await this.deps.repo.announced();
    this.deps.logger.info('workflow execution started', { executionId: id, jobId, activityId: row.activityId });
    this.deps.audit.record({ action: 'workflow.execution.started', actorUserId: user.id, details: { execution_id: id, activity_id: row.activityId, job_id: jobId } });
    // Without an execution or LLM cost quota a start cannot cross an 80 % mark: no warning check.
    if (counted && (counted.executionsMonthly !== null || counted.llmCostMonthly !== null)) void this.deps.quotas?.checkWarnings(user.id);
    return {
      success: true,
      message: 'Workflow execution started',
      execution_id: id,
      job_id: jobId,
      data: { id, status: 'running', started_at: row.startedAt ? row.startedAt.toISOString() : null },
    };
  }

  /** The 429 of a start refused by a monthly quota (audited by the quotas). */
  private async quotaRefusal(user: Caller, quota: StartQuotaTerms | null, found: StartQuotaFound): Promise<Error> {
    const quotas = this.deps.quotas;
    if (!quota || !quotas) return new Error(`execution start refused by a quota that was not given`);
    return quotas.startRefusal(user.id, quota.period, found);
  }

  /**
   * startQueued, and when the database connection breaks under it: the UPDATE
   * to `running` may have committed without our hearing so (a restart
   * mid-commit), and no job was submitted, so the refused start (503) must
   * not leave a `running` record behind: it is put back to `queued` once the
   * database answers (revertStart matches this start's job id and time only).
   */
  private async startOrRevertLater(start: Parameters<WorkflowExecutionsRepository['startQueued']>[0]): Promise<StartOutcome> {
    // From before the statement goes out, the watch counts what is heard of this execution (a long poll of its owner may then skip its read).
    const ticket = this.deps.watch.expectStart(start.id);
    try {
      const outcome = await this.deps.repo.startQueued(start);
      if (outcome.outcome === 'started') this.deps.watch.confirmStart(start.id, ticket, start.userId);
      else this.deps.watch.forgetStart(start.id, ticket);
      return outcome;
    } catch (err) {
      this.deps.watch.forgetStart(start.id, ticket);
      // Had it committed, it was counted too (a counted start's update requires its count): the revert gives it back.
      if (isDatabaseConnectionError(err)) this.revertStartLater(start.id, start.jobId, start.at, start.quota?.period ?? null);
      throw err;
    }
  }

  /** revertStart in the background, once a second for up to REVERT_RETRY_ATTEMPTS seconds, while the database is unreachable. */
  private revertStartLater(id: number, jobId: string, at: Date, quotaPeriod: string | null): void {
    const attempt = async (n: number): Promise<void> => {
      try {
        const reverted = await this.deps.repo.revertStart(id, jobId, at, quotaPeriod);
        this.deps.logger.warn('refused start put back', { executionId: id, jobId, revertedToQueued: reverted, attempts: n });
      } catch (err) {
        if (n >= REVERT_RETRY_ATTEMPTS || !isDatabaseConnectionError(err)) {
          this.deps.logger.error('refused start not put back', { executionId: id, jobId, attempts: n, error: err instanceof Error ? err.message : String(err) });
          return;
        }
        setTimeout(() => void attempt(n + 1), 1000).unref();
      }
    };
    setTimeout(() => void attempt(1), 1000).unref();
  }

  private started(id: number, o: StartOutcome, maxRunning: number): { row: StartedRow; counted: StartQuotaFound | null } {
    switch (o.outcome) {
      case 'started':
        return { row: o.row, counted: o.quota };
      case 'quota':
        throw new Error(`execution ${id}: a quota refusal reached the start's outcome`);
      case 'missing':
        throw new NotFoundError(EXECUTION_NOT_FOUND);
      case 'not_queued':
        throw this.notQueued({ id, status: o.status });
      case 'limit':
        throw this.tooMany(o.running, maxRunning);
      case 'unvalidated':
        throw new Error(`execution ${id}: inputs unvalidated after validation`);
      default: {
        const never: never = o;
        throw new Error(`unexpected start outcome ${JSON.stringify(never)}`);
      }
    }
  }

  /**
   * awaiting_user_input → running: the correlation token must match (constant
   * time) and works once; the payload must satisfy awaiting_input_schema. The
   * next job `wf_<id>_resume_<n>` carries the payload for the waiting node.
   */
  async resume(user: Caller, id: number, { token, payload }: { token: string; payload: Record<string, unknown> }): Promise<{ id: number; status: 'running'; job_id: string }> {
    const current = await this.findOwned(user, id);
    if (current.status !== 'awaiting_user_input') throw this.notAwaiting(current);
    const activity = await this.deps.activities.findForExecution(current.activityId);
    const at = new Date();
    // Time spent waiting for the user does not count against the deadline: each run gets a fresh one.
    const deadlineAt = deadlineFrom(activity, at);
    const outcome = await this.deps.repo.resume(id, current.userId, async (locked, runningCount) => {
      if (locked.status !== 'awaiting_user_input') throw this.notAwaiting(locked);
      if (!correlationTokenMatches(token, locked.correlationTokenHash)) {
        throw BadRequestError.withErrors('Invalid correlation token', ['correlation_token does not match the one issued for this pause']);
      }
      if (!locked.awaitingNode) throw new ConflictError('The execution does not name the node that awaits input');
      const errors = locked.awaitingInputSchema ? validateAgainstSchema(locked.awaitingInputSchema, payload, 'payload') : [];
      if (errors.length) throw BadRequestError.withErrors('Invalid payload', errors);
      await this.takeSlot(runningCount);
      return { jobId: workflowJobId(id, locked.resumeCount + 1), at, deadlineAt, payload };
    });
    if (!outcome) throw new NotFoundError(EXECUTION_NOT_FOUND);
    const { before, revert } = outcome;
    try {
      const row = { ...before, deadlineAt, dataShieldPolicy: activity?.dataShieldPolicy ?? null, outputs: before.outputs ?? null };
      await this.deps.router.submitWorkflowJob({ jobId: revert.jobId, payload: await this.resumePayloadOf(row, revert.jobId, { node_id: before.awaitingNode ?? '', payload }) });
    } catch (err) {
      const reverted = await this.deps.repo.revertResume(revert);
      this.deps.logger.warn('resume job not submitted', { executionId: id, jobId: revert.jobId, revertedToAwaiting: reverted, error: errorMessage(err) });
      if (reverted) throw err;
    }
    this.deps.logger.info('workflow execution resumed', { executionId: id, jobId: revert.jobId, node: before.awaitingNode });
    this.deps.audit.record({ action: 'workflow.execution.resumed', actorUserId: user.id, details: { execution_id: id, job_id: revert.jobId, node_id: before.awaitingNode } });
    return { id, status: 'running', job_id: revert.jobId };
  }

  async get(reader: ExecutionReader, id: number): Promise<ExecutionView> {
    return toExecutionView(this.readable(reader, await this.deps.repo.findSummary(id)));
  }

  /**
   * The status read. The correlation token is unsealed for the owner's own
   * access token only: not for a super administrator, not for a webhook's
   * polling token.
   */
  async status(reader: ExecutionReader, id: number): Promise<ExecutionStatusView> {
    return this.statusOf(reader, await this.deps.repo.findStatus(id));
  }

  /** The status view of a row read (or announced terminal) for `reader`: the same rights and token rule as `status`. */
  private statusOf(reader: ExecutionReader, row: ExecutionStatusRow | null): ExecutionStatusView {
    const e = this.readable(reader, row);
    const isOwner = 'user' in reader && reader.user.id === e.userId;
    let token: string | null = null;
    if (isOwner && e.status === 'awaiting_user_input' && e.correlationTokenSealed) {
      token = this.deps.sealer.open(e.correlationTokenSealed, e.id) ?? null;
      if (token === null) this.deps.logger.warn('correlation token cannot be unsealed (JWT_SECRET changed?)', { executionId: e.id });
    }
    return toStatusView(e, token);
  }

  /**
   * The status read with a long poll (issue #16 item 4): without `wait`, or
   * once the execution is terminal or awaiting input, it answers at once;
   * otherwise it answers as soon as the execution changes into such a state,
   * or with the current state when `wait.ms` have passed or the caller left.
   * Each wake-up re-reads the row, so a missed notification costs at most
   * the fallback interval, never a wrong answer; a notification that carries
   * the execution's terminal columns is answered from them without a read
   * (a terminal execution never changes again).
   */
  async awaitStatus(reader: ExecutionReader, id: number, wait: { ms: number; signal?: AbortSignal }): Promise<ExecutionStatusView> {
    const deadline = Date.now() + wait.ms;
    // The owner's poll of an execution this process started may wait without reading first, for this long at most.
    const unreadUntil = Math.min(deadline, Date.now() + UNREAD_WAIT_MAX_MS);
    for (;;) {
      // Listen before reading, so a change committed between the read and the wait is not missed.
      const stop = new AbortController();
      const relay = () => stop.abort(STOPPED);
      wait.signal?.addEventListener('abort', relay, { once: true });
      // Asked in the same turn as the waiter is added: no notification comes between the two.
      const known = 'user' in reader && Date.now() < unreadUntil && !wait.signal?.aborted ? this.deps.watch.startedHere(id, reader.user.id) : undefined;
      const woken = this.deps.watch.changed(id, Math.max(0, (known ? unreadUntil : deadline) - Date.now()), stop.signal);
      try {
        if (known && 'terminal' in known) return this.statusOf(reader, known.terminal);
        if (!known) {
          const view = await this.status(reader, id);
          if (isSettledForPolling(view.status) || Date.now() >= deadline || wait.signal?.aborted) return view;
        }
        const terminal = await woken;
        if (terminal) return this.statusOf(reader, terminal);
      } finally {
        stop.abort(STOPPED);
        wait.signal?.removeEventListener('abort', relay);
      }
    }
  }

  async timeline(user: Caller, id: number): Promise<TimelineView> {
    const e = this.readable({ user }, await this.deps.repo.findSummary(id));
    return toTimelineView(e, await this.deps.repo.findSteps(e.id));
  }

  /** Owner, a super administrator, or a polling grant for exactly this execution; 404 for everyone else. */
  private readable<T extends { id: number; userId: number }>(reader: ExecutionReader, e: T | null): T {
    if (!e) throw new NotFoundError(EXECUTION_NOT_FOUND);
    if ('user' in reader) {
      if (e.userId !== reader.user.id && reader.user.role !== 'super_admin') throw new NotFoundError(EXECUTION_NOT_FOUND);
    } else if (reader.polling.executionId !== e.id || reader.polling.userId !== e.userId) {
      throw new NotFoundError(EXECUTION_NOT_FOUND);
    }
    return e;
  }

  /** Starting and resuming are for the owner only. */
  private async findOwned(user: Caller, id: number): Promise<WorkflowExecutionEntity> {
    const e = await this.deps.repo.findById(id);
    if (!e || e.userId !== user.id) throw new NotFoundError(EXECUTION_NOT_FOUND);
    return e;
  }

  private async takeSlot(runningCount: () => Promise<number>): Promise<void> {
    const running = await runningCount();
    if (running >= this.deps.maxRunningPerUser) throw this.tooMany(running, this.deps.maxRunningPerUser);
  }

  private tooMany(running: number, max: number): TooManyRequestsError {
    return new TooManyRequestsError(`Too many running executions: at most ${max} per user; retry when one finishes`, { limit: max, running });
  }

  /**
   * The fields of the credential a node of a running execution names, for the workflow processor as the node
   * runs (spec 2.7 rule 3): only for the execution's current job, and only the credential its own stored
   * definition names for that node, opened as its owner. Anything else is 404, saying no more.
   */
  async nodeCredential(executionId: number, jobId: string, nodeId: string): Promise<{ credential_id: number; fields: Record<string, string> }> {
    const e = await this.deps.repo.findById(executionId);
    const credentialId = e && e.status === 'running' && e.jobId === jobId ? nodeCredentialId(e.workflowDefinition, nodeId) : undefined;
    const fields = e && credentialId !== undefined ? await this.deps.credentials.fieldsFor(e.userId, credentialId) : undefined;
    if (credentialId === undefined || fields === undefined) throw new NotFoundError('No credential is bound to this node of a running job');
    this.deps.logger.info('node credential opened', { executionId, jobId, nodeId, credentialId });
    return { credential_id: credentialId, fields };
  }

  /** The job of a start or resume: nodes keep only their credential ids, checked to be the owner's. */
  private async payloadOf(e: StartedRow, jobId: string): Promise<WorkflowJobPayload> {
    return {
      workflow_definition: await bindCredentials(e.workflowDefinition as WorkflowDefinition, e.userId, this.deps.credentials),
      inputs: e.inputs,
      execution_id: e.id,
      activity_id: e.activityId,
      user_id: e.userId,
      user_signature: signJobUser(this.deps.jobUserSecret, jobId, e.userId),
      ...(e.deadlineAt ? { deadline_at: e.deadlineAt.toISOString() } : {}),
      ...(e.dataShieldPolicy ? { data_shield_policy: e.dataShieldPolicy } : {}),
    };
  }

  /**
   * The job of a resume: besides the contract's node_id and payload, the state of the nodes already run (as the
   * resume left them: no result is applied between a resume and its job's first message), for a processor that
   * keeps none of its own.
   */
  private async resumePayloadOf(row: StartedRow & Pick<ResumedRow, 'taskStates' | 'outputs'>, jobId: string, resume: ResumedRow['resumeJob']): Promise<WorkflowJobPayload> {
    return { ...(await this.payloadOf(row, jobId)), resume: { ...resume, task_states: row.taskStates, outputs: row.outputs ?? {} } };
  }

  private notQueued(e: Pick<WorkflowExecutionEntity, 'id' | 'status'>): ConflictError {
    return new ConflictError(`Execution ${e.id} is ${e.status}; only a queued execution can be started`, { status: e.status });
  }

  private notAwaiting(e: Pick<WorkflowExecutionEntity, 'id' | 'status'>): ConflictError {
    return new ConflictError(`Execution ${e.id} is ${e.status}; only an execution awaiting user input can be resumed`, { status: e.status });
  }
}
