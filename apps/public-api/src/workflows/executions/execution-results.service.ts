import type { Counter } from 'prom-client';
import type { ResultMessage } from '@docflow/contracts';
import type { Logger, Metrics } from '@docflow/service-kit';
import type { AuditLog } from '../../identity';
import type { ExecutionStatus } from './execution-status';
import { CorrelationTokenSealer, hashCorrelationToken } from './correlation-token';
import type { PgTransaction } from '@docflow/persistence';
import { buildResultUpdate, executionIdOf, type ExecutionResultUpdate } from './result-application';
import type { ApplyResultOutcome, WorkflowExecutionsRepository } from './workflow-executions.repository';

export type ApplyOutcome =
  | { outcome: 'applied'; executionId: number; status: ExecutionStatus }
  /** Stale, duplicate, from an earlier job, or the execution is already terminal: nothing changed. */
  | { outcome: 'ignored'; executionId: number; status: ExecutionStatus }
  | { outcome: 'unknown_execution'; executionId: number }
  /** The job is not a workflow run (no execution id in the message or the job id). */
  | { outcome: 'not_a_workflow_job' };

export interface ExecutionResultsDeps {
  repo: WorkflowExecutionsRepository;
  sealer: CorrelationTokenSealer;
  logger: Logger;
  metrics: Metrics;
  audit: AuditLog;
}

/** Results that end a run (or pause it for input) are audited as `workflow.execution.<status>`; progress is not. */
const AUDITED_STATUSES: ReadonlySet<ExecutionStatus> = new Set(['completed', 'failed', 'cancelled', 'awaiting_user_input']);

function resultsCounter(metrics: Metrics): Counter<'status' | 'outcome'> {
  const name = 'public_api_execution_results_total';
  const existing = metrics.registry.getSingleMetric(name) as Counter<'status' | 'outcome'> | undefined;
  return existing ?? metrics.counter(name, 'Workflow results messages by reported status and outcome', ['status', 'outcome']);
}

/**
 * Writes processors' results (spec 4.16) into execution records: the one code
 * path behind the relay-queue consumer and PUT /workflow-executions/internal/{id}/results.
 */
export class ExecutionResultsService {
  private readonly counter: Counter<'status' | 'outcome'>;

  constructor(private readonly deps: ExecutionResultsDeps) {
    this.counter = resultsCounter(deps.metrics);
  }

  /** Applies one message; resolves once its effects are committed (or it was found to be a no-op). */
  async apply(msg: ResultMessage): Promise<ApplyOutcome> {
    const prepared = this.prepare(msg);
    if (!prepared) return this.notAWorkflowJob(msg);
    const { update, sealed, hash } = prepared;
    return this.report(msg, update, await this.deps.repo.applyResult(update, sealed, hash));
  }

  /**
   * Applies the messages of a batch inside its transaction `tx` in as few
   * statements as order allows: round k holds the k-th message of each
   * execution, one multi-row statement per round (messages of one execution
   * merge into its record, so they apply one after the other). Answers, in
   * the order of `msgs`, what to do once `tx` committed.
   */
  async applyManyIn(tx: PgTransaction, msgs: readonly ResultMessage[]): Promise<(() => ApplyOutcome)[]> {
    const reports: (() => ApplyOutcome)[] = new Array<() => ApplyOutcome>(msgs.length);
    const rounds: { index: number; msg: ResultMessage; update: ExecutionResultUpdate; sealed: string | null; hash: string | null }[][] = [];
    const seen = new Map<number, number>();
    msgs.forEach((msg, index) => {
      const prepared = this.prepare(msg);
      if (!prepared) {
        reports[index] = () => this.notAWorkflowJob(msg);
        return;
      }
      const round = seen.get(prepared.update.executionId) ?? 0;
      seen.set(prepared.update.executionId, round + 1);
      (rounds[round] ??= []).push({ index, msg, ...prepared });
    });
    // Every execution of the batch is locked first, in id order: rounds alone would lock a later round's rows after an earlier one's.
    await this.deps.repo.lockForResults(tx, rounds[0]?.map((r) => r.update.executionId) ?? []);
    for (const round of rounds) {
      const results = await this.deps.repo.applyResultsIn(
        tx,
        round.map((r) => ({ u: r.update, sealedToken: r.sealed, tokenHash: r.hash })),
      );
      round.forEach((r, i) => {
        const result = results[i] as ApplyResultOutcome;
        reports[r.index] = () => this.report(r.msg, r.update, result);
      });
    }
    return reports;
  }

  /**
   * A batch of workflow results applied in one message and one commit
   * (WorkflowExecutionsRepository.applyResultsAtOnce), when it can be: at
   * least two results, each of a workflow execution, no execution twice (one
   * round) and no step cost. Answers, in the order of `msgs`, what to do once
   * it committed; undefined, having done nothing, when the batch needs
   * `applyManyIn` in a transaction instead.
   */
  async applyAtOnce(msgs: readonly ResultMessage[]): Promise<(() => ApplyOutcome)[] | undefined> {
    if (msgs.length < 2) return undefined;
    const seen = new Set<number>();
    const built: { msg: ResultMessage; update: ExecutionResultUpdate }[] = [];
    for (const msg of msgs) {
      const executionId = executionIdOf(msg);
      if (executionId === undefined || seen.has(executionId)) return undefined;
      seen.add(executionId);
      const update = buildResultUpdate(executionId, msg);
      if (update.steps.some((st) => st.cost !== null)) return undefined;
      built.push({ msg, update });
    }
    const rows = built.map(({ msg, update }) => ({ msg, ...this.sealed(msg, update) }));
    const results = await this.deps.repo.applyResultsAtOnce(rows.map((r) => ({ u: r.update, sealedToken: r.sealed, tokenHash: r.hash })));
    return rows.map((r, i) => () => this.report(r.msg, r.update, results[i] as ApplyResultOutcome));
  }

  private prepare(msg: ResultMessage): { update: ExecutionResultUpdate; sealed: string | null; hash: string | null } | undefined {
    const executionId = executionIdOf(msg);
    if (executionId === undefined) return undefined;
    return this.sealed(msg, buildResultUpdate(executionId, msg));
  }

  /** The update with its correlation token sealed and hashed for storage. */
  private sealed(msg: ResultMessage, update: ExecutionResultUpdate): { update: ExecutionResultUpdate; sealed: string | null; hash: string | null } {
    const { executionId } = update;
    const token = update.correlationToken;
    if (update.status === 'awaiting_user_input' && token === null) {
      this.deps.logger.warn('execution awaits input without a correlation token; it cannot be resumed', { executionId, jobId: msg.job_id });
    }
    const sealed = token === null ? null : this.deps.sealer.seal(token, executionId);
    const hash = token === null ? null : hashCorrelationToken(token);
    return { update, sealed, hash };
  }

  private notAWorkflowJob(msg: ResultMessage): ApplyOutcome {
    this.counter.inc({ status: msg.status, outcome: 'not_a_workflow_job' });
    this.deps.logger.debug('result of a job that is not a workflow run; ignored', { jobId: msg.job_id, status: msg.status });
    return { outcome: 'not_a_workflow_job' };
  }

  private report(msg: ResultMessage, update: ExecutionResultUpdate, result: ApplyResultOutcome): ApplyOutcome {
    const { logger } = this.deps;
    const { executionId } = update;
    const meta = { executionId, jobId: msg.job_id, reported: msg.status, sequence: update.sequence };
    switch (result.outcome) {
      case 'applied':
        this.counter.inc({ status: msg.status, outcome: 'applied' });
        logger.info('execution result applied', { ...meta, status: result.status });
        if (AUDITED_STATUSES.has(result.status)) {
          this.deps.audit.record({ action: `workflow.execution.${result.status}`, actorUserId: result.userId, details: { execution_id: executionId, job_id: msg.job_id } });
        }
        return { outcome: 'applied', executionId, status: result.status };
      case 'ignored':
        this.counter.inc({ status: msg.status, outcome: 'ignored' });
        logger.info('stale or duplicate execution result ignored', { ...meta, current: result.status });
        return { outcome: 'ignored', executionId, status: result.status };
      case 'unknown':
        this.counter.inc({ status: msg.status, outcome: 'unknown_execution' });
        logger.warn('result for an unknown execution; dropped', meta);
        return { outcome: 'unknown_execution', executionId };
      default: {
        const never: never = result;
        throw new Error(`unexpected outcome ${JSON.stringify(never)}`);
      }
    }
  }
}
