import type { JobMessageV1 } from '@docflow/contracts';
import { InFlightJobs, type Broker, type MessageMeta } from '@docflow/messaging';
import { errorMessage, type Logger } from '@docflow/service-kit';
import type { WorkflowLimits } from '@docflow/workflow';
import { RunAborted } from '../engine/abort';
import type { RunOutcome } from '../engine/run-types';
import { WorkflowRun, type EngineDeps } from '../engine/workflow-run';
import type { WorkflowMetrics } from '../metrics';
import { JobResults, type FinalResult } from '../results/job-results';
import { deliveredExecutionId, mayDoWork, parseWorkflowJob } from './workflow-job';
import { findPolicyViolation } from '../executors/ai/data-shield/shield-policy';
import { initialTaskStates } from '../engine/task-states';
import { mayPark } from '../engine/node-kinds';
import type { ParkStore } from '../parking/park-store';

export interface WorkflowJobHandlerDeps {
  broker: Pick<Broker, 'publish'>;
  engine: EngineDeps;
  /** Parked runs and their wake-ups (issue #15 item 3); the engine reads parked nodes from the same store. */
  parks?: ParkStore;
  metrics: WorkflowMetrics;
  logger: Logger;
  progressIntervalMs: number;
  /** INTERNAL_SERVICE_JWT_SECRET: a job acts for its `user_id` only when the platform signed it (spec 5). */
  jobUserSecret: string;
  /** What a definition may ask (README, Limits); the documented defaults when absent. */
  limits?: WorkflowLimits;
}

function finalResult(outcome: Exclude<RunOutcome, { status: 'parked' }>): FinalResult {
  const common = { outputs: outcome.outputs, task_states: outcome.taskStates };
  switch (outcome.status) {
    case 'completed':
      return { status: 'completed', ...common };
    case 'failed':
      return {
        status: 'failed',
        ...common,
        error: outcome.error,
        error_type: outcome.errorType,
        ...(outcome.failedNode !== undefined ? { failed_node: outcome.failedNode } : {}),
      };
    case 'awaiting_user_input':
      return {
        status: 'awaiting_user_input',
        ...common,
        awaiting_node: outcome.awaitingNode,
        awaiting_input_schema: outcome.inputSchema,
        correlation_token: outcome.correlationToken,
        awaiting_since: outcome.awaitingSince.toISOString(),
      };
    default: {
      const never: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Handles one message of `workflow_queue`: validates the job (a bad one is
 * answered with a `failed` result, not dead-lettered), runs it, and publishes
 * the final result before returning (the consumer acks after that). A run
 * stopped by shutdown, or one whose checkpoint could not be written, throws:
 * the job is requeued and continues from its checkpoints.
 */
export class WorkflowJobHandler {
  /** The runs in progress; their stop signal is aborted at shutdown. */
  readonly jobs = new InFlightJobs();

  constructor(private readonly deps: WorkflowJobHandlerDeps) {}

  readonly handle = this.jobs.handler((msg: JobMessageV1, meta: MessageMeta): Promise<void> => this.run(msg, meta));

  /** Why runs stop at shutdown: they are redelivered and continue from their checkpoints. */
  static shutdownReason(): RunAborted {
    return new RunAborted('shutdown', 'the processor is shutting down');
  }

  /** Stops every run in progress without a result (their jobs are redelivered). */
  abortAll(): void {
    this.jobs.abortAll(WorkflowJobHandler.shutdownReason());
  }

  /** Resolves when no handler is running, or after `timeoutMs`. */
  idle(timeoutMs: number): Promise<void> {
    return this.jobs.idle(timeoutMs);
  }

  private async run(msg: JobMessageV1, meta: MessageMeta): Promise<void> {
    const { broker, metrics, progressIntervalMs, parks } = this.deps;
    // The cancel read goes out now and its round trip overlaps the job's validation (issue #16); the run awaits it before running anything.
    // A graph of control and decision nodes reads nothing (WorkflowRun.execute).
    const deliveredId = deliveredExecutionId(msg);
    const cancelRead = mayDoWork(msg) ? this.cancelReadOf(deliveredId) : undefined;
    const parsed = parseWorkflowJob(msg, this.deps.jobUserSecret, this.deps.limits);
    const executionId = parsed.ok ? parsed.job.executionId : parsed.executionId;
    const logger = this.deps.logger.child({ jobId: msg.job_id, ...(executionId !== undefined ? { executionId } : {}), deliveryCount: meta.deliveryCount });
    const results = new JobResults(broker, { job_id: msg.job_id, ...(executionId !== undefined ? { execution_id: executionId } : {}) }, progressIntervalMs, logger);
    if (!parsed.ok) {
      logger.warn('workflow job rejected', { error: parsed.error });
      await results.final({ status: 'failed', error: parsed.error, error_type: 'validation_error', outputs: {}, task_states: {} });
      metrics.executions.inc({ status: 'failed' });
      return;
    }
    // Spec 4.17 rule 7: a run whose policy requires shielding and that has an LLM node that would go unshielded fails before any node runs.
    const violation = findPolicyViolation(parsed.job.graph, parsed.job.dataShieldPolicy);
    if (violation) {
      logger.warn('workflow refused by its Data Shield policy', { failedNode: violation.nodeId });
      await results.final({ status: 'failed', error: violation.message, error_type: 'policy_violation', failed_node: violation.nodeId, outputs: {}, task_states: initialTaskStates(parsed.job.graph) });
      metrics.executions.inc({ status: 'failed' });
      return;
    }
    metrics.inFlight.inc();
    try {
      const outcome = await new WorkflowRun(this.deps.engine, {
        ...parsed.job,
        // The early read is of the execution the job names; a payload that named another (refused above anyway) reads again.
        ...(cancelRead && parsed.job.executionId === deliveredId ? { cancelRead } : {}),
        meta,
        stopSignal: this.jobs.signal,
        logger,
        onProgress: (states) => results.progress(states),
      }).execute();
      if (outcome.status === 'parked') {
        // The progress so far reaches the record before the message is acked; the wake-up re-publishes this very job.
        await results.drain();
        if (!parks) throw new Error('a node parked but the processor has no park store');
        await parks.park(parsed.job.executionKey, msg, outcome.parked, outcome.wakeAt);
        metrics.parks.inc();
        logger.info('workflow parked', { wakeAt: outcome.wakeAt.toISOString(), nodes: outcome.parked.map((p) => p.nodeId) });
        return;
      }
      await results.final(finalResult(outcome));
      // Only a graph that can park has a wake-up row to forget: other runs spend no statement on it.
      if (parks && mayPark(parsed.job.graph)) await this.clearParked(parks, parsed.job.executionKey, logger);
      metrics.executions.inc({ status: outcome.status });
      if (outcome.status === 'failed') logger.info('workflow failed', { error: outcome.error, errorType: outcome.errorType, failedNode: outcome.failedNode });
      else logger.info(outcome.status === 'completed' ? 'workflow completed' : 'workflow awaiting user input', outcome.status === 'completed' ? {} : { awaitingNode: outcome.awaitingNode });
    } catch (err) {
      results.close();
      if (err instanceof RunAborted && err.kind === 'cancelled') {
        // The record is already `cancelled` (the public API set it); a result would be ignored, so none is sent and the job is acked.
        logger.info('workflow run abandoned: the execution was cancelled');
        metrics.executions.inc({ status: 'cancelled' });
        if (parks && mayPark(parsed.job.graph)) await this.clearParked(parks, parsed.job.executionKey, logger);
        return;
      }
      if (err instanceof RunAborted && err.kind === 'shutdown') logger.info('workflow run interrupted by shutdown; the job will be redelivered');
      else logger.warn('workflow run could not finish; the job will be retried', { error: errorMessage(err) });
      throw err;
    } finally {
      metrics.inFlight.dec();
    }
  }

  /** Whether the execution was cancelled, read now; undefined without an execution or a control. A failed read fails the run where it is awaited. */
  private cancelReadOf(executionId: number | undefined): Promise<boolean> | undefined {
    const { control } = this.deps.engine;
    if (!control || executionId === undefined) return undefined;
    const read = control.isCancelled(executionId);
    // Handled here as well, so that a read never awaited (a job refused before its run) is not an unhandled rejection.
    read.catch(() => undefined);
    return read;
  }

  /** A run that ended (or was cancelled) has nothing parked any more; a row left behind only wakes a run that ends at once. */
  private async clearParked(parks: ParkStore, executionKey: string, logger: Logger): Promise<void> {
    try {
      await parks.clear(executionKey);
    } catch (err) {
      logger.warn('parked nodes not cleared', { error: errorMessage(err) });
    }
  }
}
