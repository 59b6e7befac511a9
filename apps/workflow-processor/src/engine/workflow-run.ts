import { randomBytes } from 'node:crypto';
import type { ErrorType, TaskState } from '@docflow/contracts';
import { buildScope, isFinished, isPlainObject, nextSteps, resolveTemplates, retryDelayMs, retryPolicyOf, WorkflowEvaluationError, type WorkflowNode } from '@docflow/workflow';
import { errorMessage } from '@docflow/service-kit';
import type { CheckpointStore, NodeCheckpoint } from '../checkpoints/checkpoint-store';
import type { ExecutorRegistry } from '../executors/executor-registry';
import { isPark, isPause, NodeFailure, type ExecutorOutcome, type NodeContext, type ParkOutcome, type PauseOutcome } from '../executors/executor';
import type { WorkflowMetrics } from '../metrics';
import type { ParkedNode, ParkedNodeSource } from '../parking/park-store';
import { abortReason, raceAbort, RunAborted, sleep } from './abort';
import { doesWork, executorIdOf, isUserInputNode, mayPark, needsCheckpoints } from './node-kinds';
import type { RunOutcome, RunRequest } from './run-types';
import type { PriorNode } from '../jobs/workflow-job';
import { checkpointState, initialTaskStates } from './task-states';

/** What one run may take of a processor (README, Limits; issue #13). */
export interface RunLimits {
  /** Nodes running at once (WORKFLOW_MAX_PARALLEL_NODES); runnable nodes past it wait their turn. */
  maxParallelNodes: number;
  /** Serialised size of all node outputs of the run (WORKFLOW_MAX_OUTPUT_BYTES); the node past it fails. */
  maxOutputBytes: number;
}

export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = Object.freeze({ maxParallelNodes: 8, maxOutputBytes: 32 * 1024 * 1024 });

/** When a run parks instead of holding its message (README, Configuration; issue #15 item 3). */
export interface ParkSettings {
  /** WAIT_PARK_AFTER_MS: a retry backoff this long or longer parks the run instead of sleeping. */
  minMs: number;
  /** WAKE_HEARTBEAT_SECONDS × 1000: a parked run is woken at least this often to report progress (the public API's lease). */
  heartbeatMs: number;
}

export const DEFAULT_PARK_SETTINGS: Readonly<ParkSettings> = Object.freeze({ minMs: 10_000, heartbeatMs: 300_000 });

/** A parked node woken up to this early still runs (wake-ups are polled, clocks of replicas differ a little). */
const DUE_TOLERANCE_MS = 1000;

/** Whether the owner cancelled an execution (issue #15): read at each step boundary. */
export interface ExecutionControl {
  isCancelled(executionId: number): Promise<boolean>;
}

export interface EngineDeps {
  executors: ExecutorRegistry;
  checkpoints: CheckpointStore;
  /** Where parked nodes are read back; without it nothing parks (waits and backoffs sleep in process). */
  parks?: ParkedNodeSource;
  /** Defaults to DEFAULT_PARK_SETTINGS. */
  parking?: ParkSettings;
  /** Without it, runs are never cancelled (jobs submitted without the public API). */
  control?: ExecutionControl;
  metrics: WorkflowMetrics;
  /** Defaults to DEFAULT_RUN_LIMITS. */
  limits?: RunLimits;
  now?: () => Date;
}

interface Failure {
  nodeId: string;
  error: string;
  errorType: ErrorType;
}

interface Pause {
  nodeId: string;
  inputSchema: Record<string, unknown>;
  token: string;
  since: Date;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Bytes of `output` as it is checkpointed and published. */
function outputBytes(output: unknown): number {
  const json = JSON.stringify(output ?? null) as string | undefined;
  return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
}

/**
 * One delivery of one workflow job. Runs every runnable node as soon as its
 * predecessors settled (independent branches concurrently), skips inactive
 * decision branches, checkpoints each working node right after it ends and
 * before anything downstream starts, and ends completed, failed, or paused
 * on a user_input_task. Throws (and publishes nothing) on shutdown or when a
 * checkpoint cannot be written: the job is then redelivered and resumes from
 * its checkpoints.
 */
export class WorkflowRun {
  private readonly states: Record<string, TaskState>;
  private readonly outputs: Record<string, unknown> = {};
  private readonly restored = new Map<string, NodeCheckpoint>();
  private readonly controller = new AbortController();
  /** A node that does work ended since the last read of the execution's status (see cancelCheckMatters). */
  private workEndedSinceCheck = false;
  private readonly running = new Map<string, Promise<void>>();
  private readonly deadlineNodes: string[] = [];
  private readonly now: () => Date;
  private readonly limits: RunLimits;
  private readonly parking: ParkSettings;
  /** Parked nodes read back at the start of this delivery, by node id (due ones are run with their state). */
  private readonly parkedBefore = new Map<string, ParkedNode>();
  /** Nodes parked now: the run ends `parked` when nothing else is left to run. */
  private readonly parked = new Map<string, ParkedNode>();
  private outputTotal = 0;
  private failure: Failure | undefined;
  private pause: Pause | undefined;
  private infraError: unknown;

  constructor(
    private readonly deps: EngineDeps,
    private readonly req: RunRequest,
  ) {
    this.now = deps.now ?? (() => new Date());
    this.limits = deps.limits ?? DEFAULT_RUN_LIMITS;
    this.parking = deps.parking ?? DEFAULT_PARK_SETTINGS;
    this.states = initialTaskStates(req.graph);
  }

  async execute(): Promise<RunOutcome> {
    const pure = !needsCheckpoints(this.req.graph);
    if (pure) {
      // Only nodes without effects (start, decision, end: microseconds, nothing checkpointed, no progress sent), so the
      // cancel state is not read (issue #16): a cancel keeps nothing from happening here, and the result of a run for an
      // execution cancelled meanwhile is refused by the record's guard, as a result that crosses the cancel is.
      // A read handed over anyway is left unawaited; its failure must not surface as an unhandled rejection.
      this.req.cancelRead?.catch(() => undefined);
      this.restorePrior();
      return this.run();
    }
    for (const cp of await this.deps.checkpoints.load(this.req.executionKey)) this.restore(cp);
    this.restorePrior();
    if (this.deps.parks && mayPark(this.req.graph)) await this.restoreParked(this.deps.parks);
    if (await (this.req.cancelRead ?? this.cancelled())) throw new RunAborted('cancelled', 'the execution was cancelled before this delivery ran');
    return this.run();
  }

  /** A retry's completed nodes of the failed execution, where no checkpoint of this one holds them. */
  private restorePrior(): void {
    for (const prior of this.req.prior ?? []) if (!this.restored.has(prior.nodeId)) this.restore(priorCheckpoint(prior, this.req.graph.nodes.get(prior.nodeId)));
  }

  /** The delivery's nodes, from the state restored. */
  private async run(): Promise<RunOutcome> {
    if (this.req.resume) {
      const refusal = this.checkResume(this.req.resume.nodeId);
      if (refusal) return { status: 'failed', error: refusal, errorType: 'validation_error', ...this.snapshot() };
    }
    const { stopSignal } = this.req;
    const onStop = () => this.controller.abort(abortReason(stopSignal));
    if (stopSignal.aborted) onStop();
    else stopSignal.addEventListener('abort', onStop, { once: true });
    const deadlineTimer = this.armDeadline();
    // A parked run woken before its nodes are due (a heartbeat) reports progress: the public API's lease sees it alive.
    if (this.parked.size) this.progress();
    try {
      for (;;) {
        if (!this.controller.signal.aborted) this.schedule();
        if (this.running.size === 0) break;
        await Promise.race(this.running.values());
        // A step boundary: a cancelled execution starts nothing more, and nodes still running are abandoned.
        if (!this.controller.signal.aborted && this.cancelCheckMatters() && (await this.cancelled())) this.controller.abort(new RunAborted('cancelled', 'the execution was cancelled'));
      }
    } finally {
      if (deadlineTimer) clearTimeout(deadlineTimer);
      stopSignal.removeEventListener('abort', onStop);
    }
    return this.outcome();
  }

  // ---- scheduling ------------------------------------------------------

  private schedule(): void {
    const { runnable, skipped } = nextSteps(this.req.graph, this.states);
    for (const id of skipped) this.setState(id, { status: 'skipped' });
    for (const id of runnable) {
      // The rest stay pending and start as running nodes end (WORKFLOW_MAX_PARALLEL_NODES).
      if (this.running.size >= this.limits.maxParallelNodes) break;
      const node = this.req.graph.nodes.get(id);
      if (!node) continue;
      // One pause at a time: another user_input_task waits for the next resume.
      if (this.pause && isUserInputNode(node)) continue;
      const run = this.runNode(node).finally(() => this.running.delete(id));
      this.running.set(id, run);
    }
  }

  private armDeadline(): NodeJS.Timeout | undefined {
    const deadline = this.req.deadline;
    if (!deadline) return undefined;
    const abort = () => this.controller.abort(new RunAborted('deadline', `WORKFLOW_DEADLINE_EXCEEDED: execution exceeded its deadline of ${deadline.text}`));
    const ms = deadline.at.getTime() - this.now().getTime();
    if (ms <= 0) {
      abort();
      return undefined;
    }
    return ms > MAX_TIMER_MS ? undefined : setTimeout(abort, ms);
  }

  // ---- one node ----------------------------------------------------------

  private async runNode(node: WorkflowNode): Promise<void> {
    const taskType = executorIdOf(node);
    const works = doesWork(node);
    const startedAt = this.now();
    this.setState(node.id, { status: 'running', started_at: startedAt.toISOString(), result: null, error: null });
    if (works) this.progress();
    const t0 = performance.now();
    let status: 'completed' | 'failed' | 'aborted' = 'aborted';
    try {
      const outcome = await this.attempt(node, taskType);
      if (isPark(outcome)) return;
      if (isPause(outcome)) {
        await this.pauseAt(node, outcome, startedAt);
        return;
      }
      this.countOutput(node.id, outcome.output);
      status = 'completed';
      const completed: NodeCheckpoint = {
        nodeId: node.id,
        taskType,
        status: 'completed',
        output: outcome.output,
        error: null,
        errorType: null,
        correlationToken: null,
        startedAt,
        completedAt: this.now(),
        cost: outcome.cost ?? null,
      };
      await this.settle(node, completed, works);
    } catch (err) {
      status = await this.onNodeError(node, taskType, err, startedAt, works);
    } finally {
      if (status !== 'aborted') this.deps.metrics.nodeDuration.observe({ task_type: taskType, status }, (performance.now() - t0) / 1000);
      if (works) {
        this.progress();
        this.workEndedSinceCheck = true;
      }
    }
  }

  /**
   * Runs the node's executor, again after a transient failure while its
   * `retry` policy allows (waiting backoff × 2^(n-1); a stop or cancel ends
   * the wait; a backoff of WAIT_PARK_AFTER_MS or more parks the node).
   * Other failures, and the last transient one, are thrown. A node woken
   * from a park continues at the attempt, and with the state, it parked with.
   */
  private async attempt(node: WorkflowNode, taskType: string): Promise<ExecutorOutcome> {
    const policy = retryPolicyOf(isPlainObject(node.data.config) ? node.data.config : {});
    const woken = this.parkedBefore.get(node.id);
    this.parkedBefore.delete(node.id);
    let parkedState = woken?.state ?? undefined;
    for (let attempt = woken?.attempt ?? 1; ; attempt += 1) {
      try {
        const ctx = this.contextFor(node, taskType, parkedState);
        parkedState = undefined;
        const outcome = await raceAbort(this.deps.executors.run(taskType, ctx, this.req.meta), this.controller.signal);
        return isPark(outcome) ? this.parkNode(node, { due: outcome.park.until, attempt, state: outcome.park.state }) : outcome;
      } catch (err) {
        if (!(err instanceof NodeFailure) || !err.transient || attempt >= policy.maxAttempts) throw err;
        const delayMs = retryDelayMs(policy, attempt);
        this.req.logger.info('node failed transiently; retrying', { nodeId: node.id, attempt, maxAttempts: policy.maxAttempts, delayMs, error: err.message });
        if (this.deps.parks && delayMs >= this.parking.minMs) return this.parkNode(node, { due: new Date(this.now().getTime() + delayMs), attempt: attempt + 1, state: null });
        await sleep(delayMs, this.controller.signal);
      }
    }
  }

  /** Notes a parked node; it keeps its `running` state and nothing downstream of it starts. */
  private parkNode(node: WorkflowNode, park: Omit<ParkedNode, 'nodeId'>): ParkOutcome {
    this.parked.set(node.id, { nodeId: node.id, ...park });
    this.req.logger.debug('node parked', { nodeId: node.id, due: park.due.toISOString(), attempt: park.attempt });
    return { park: { until: park.due, state: park.state } };
  }

  /**
   * Reads the run's parked nodes back: those due now run again (with their
   * state), the others stay parked without running their executor.
   */
  private async restoreParked(source: ParkedNodeSource): Promise<void> {
    const dueBy = this.now().getTime() + DUE_TOLERANCE_MS;
    for (const p of await source.loadParked(this.req.executionKey)) {
      const settled = this.restored.get(p.nodeId);
      if (!this.req.graph.nodes.has(p.nodeId) || (settled && settled.status !== 'awaiting_input')) continue;
      if (p.due.getTime() <= dueBy) {
        this.parkedBefore.set(p.nodeId, p);
        continue;
      }
      this.parked.set(p.nodeId, p);
      this.setState(p.nodeId, { status: 'running', result: null, error: null });
    }
  }

  private contextFor(node: WorkflowNode, taskType: string, parkedState?: unknown): NodeContext {
    const rawConfig = isPlainObject(node.data.config) ? node.data.config : {};
    const context = { user_id: this.req.userId, execution_id: this.req.executionId };
    const scope = buildScope({ inputs: this.req.inputs, context, outputs: this.outputs });
    const resume = this.req.resume;
    return {
      executionKey: this.req.executionKey,
      jobId: this.req.jobId,
      executionId: this.req.executionId,
      ...(this.req.userId !== undefined ? { runUserId: this.req.userId } : {}),
      nodeId: node.id,
      nodeType: node.type,
      taskType,
      label: typeof node.data.label === 'string' ? node.data.label : node.id,
      config: taskType === 'decision' ? rawConfig : (resolveTemplates(rawConfig, scope) as Record<string, unknown>),
      rawConfig,
      scope,
      inputs: this.req.inputs,
      signal: this.controller.signal,
      logger: this.req.logger,
      ...(resume && resume.nodeId === node.id ? { resumePayload: resume.payload } : {}),
      ...(this.req.dataShieldPolicy ? { dataShieldPolicy: this.req.dataShieldPolicy } : {}),
      canPark: this.deps.parks !== undefined,
      ...(parkedState !== undefined && parkedState !== null ? { parkedState } : {}),
    };
  }

  /** Adds a node's output to the run's total, or fails the node that would take it past WORKFLOW_MAX_OUTPUT_BYTES. */
  private countOutput(nodeId: string, output: unknown): void {
    const bytes = outputBytes(output);
    if (this.outputTotal + bytes > this.limits.maxOutputBytes) {
      throw new NodeFailure('configuration_error', `The outputs of this run would exceed ${this.limits.maxOutputBytes} bytes (WORKFLOW_MAX_OUTPUT_BYTES); node ${nodeId} produced ${bytes}`);
    }
    this.outputTotal += bytes;
  }

  /** Records a completed or failed node: checkpoint first (working nodes), then the state that lets successors run. */
  private async settle(node: WorkflowNode, checkpoint: NodeCheckpoint, works: boolean): Promise<void> {
    let stored = checkpoint;
    if (works) {
      try {
        stored = await this.deps.checkpoints.saveTerminal(this.req.executionKey, this.req.jobId, checkpoint);
      } catch (err) {
        this.infraError ??= err;
        this.controller.abort(new RunAborted('infrastructure', `checkpoint of node ${node.id} could not be written: ${errorMessage(err)}`));
        return;
      }
    }
    this.apply(stored);
  }

  private apply(cp: NodeCheckpoint): void {
    const state = checkpointState(cp);
    this.setState(cp.nodeId, state);
    if (cp.status === 'completed') this.outputs[cp.nodeId] = cp.output;
    // Outputs restored from checkpoints count too (the node that produced them was counted on an earlier delivery).
    if (cp.status === 'completed' && this.restored.get(cp.nodeId) === cp) this.outputTotal += outputBytes(cp.output);
    if (cp.status === 'failed') {
      this.failure ??= { nodeId: cp.nodeId, error: cp.error ?? 'node failed', errorType: (cp.errorType ?? 'internal_error') as ErrorType };
      this.controller.abort(new RunAborted('node_failed', `node ${cp.nodeId} failed`));
    }
  }

  private async onNodeError(node: WorkflowNode, taskType: string, err: unknown, startedAt: Date, works: boolean): Promise<'failed' | 'aborted'> {
    if (err instanceof RunAborted) {
      switch (err.kind) {
        case 'deadline':
          this.deadlineNodes.push(node.id);
          this.setState(node.id, { status: 'failed', error: err.message, error_type: 'deadline_exceeded', completed_at: this.now().toISOString() });
          return 'failed';
        case 'node_failed':
          // Abandoned because another node failed: it never counted, so it reads as not run.
          this.setState(node.id, { status: 'pending', result: null, error: null, started_at: undefined });
          return 'aborted';
        case 'shutdown':
        case 'infrastructure':
        case 'cancelled':
          return 'aborted';
        default: {
          const never: never = err.kind;
          throw new Error(`unknown abort kind ${String(never)}`);
        }
      }
    }
    let failure: NodeFailure;
    if (err instanceof NodeFailure) failure = err;
    else if (err instanceof WorkflowEvaluationError) failure = new NodeFailure('configuration_error', err.message);
    else {
      this.req.logger.error('node failed unexpectedly', { nodeId: node.id, taskType, error: errorMessage(err), stack: err instanceof Error ? err.stack : undefined });
      failure = new NodeFailure('internal_error', `Node ${node.id} failed unexpectedly: ${errorMessage(err)}`);
    }
    await this.settle(
      node,
      {
        nodeId: node.id,
        taskType,
        status: 'failed',
        output: failure.result ?? null,
        error: failure.message,
        errorType: failure.errorType,
        correlationToken: null,
        startedAt,
        completedAt: this.now(),
        cost: null,
      },
      works,
    );
    return 'failed';
  }

  /** A user_input_task without its payload: keep (or issue and record) the correlation token, and stop there. */
  private async pauseAt(node: WorkflowNode, outcome: PauseOutcome, startedAt: Date): Promise<void> {
    let record = this.restored.get(node.id);
    if (record?.status !== 'awaiting_input' || !record.correlationToken) {
      const pause: NodeCheckpoint = {
        nodeId: node.id,
        taskType: executorIdOf(node),
        status: 'awaiting_input',
        output: null,
        error: null,
        errorType: null,
        correlationToken: randomBytes(32).toString('hex'),
        startedAt,
        completedAt: null,
        cost: null,
      };
      try {
        record = await this.deps.checkpoints.savePause(this.req.executionKey, this.req.jobId, pause);
      } catch (err) {
        this.infraError ??= err;
        this.controller.abort(new RunAborted('infrastructure', `pause of node ${node.id} could not be recorded: ${errorMessage(err)}`));
        return;
      }
    }
    if (record.status !== 'awaiting_input' || !record.correlationToken) {
      // Another delivery settled the node meanwhile: continue from its record.
      this.apply(record);
      return;
    }
    this.setState(node.id, { status: 'running', started_at: record.startedAt.toISOString() });
    this.pause = { nodeId: node.id, inputSchema: outcome.pause.inputSchema, token: record.correlationToken, since: record.startedAt };
  }

  // ---- state -------------------------------------------------------------

  /**
   * Whether a step boundary reads the execution's status: only where a cancel
   * can still change something, i.e. a node that does work ended since the
   * last read (its result would be published), is still running (it would be
   * abandoned) or is about to start. Between pure nodes (start, decision,
   * end: no effects, microseconds) the read is skipped; the read before the
   * delivery runs anything covers them (issue #16: 4 reads → 1 per run of a
   * start → decision → end workflow).
   */
  private cancelCheckMatters(): boolean {
    if (this.workEndedSinceCheck) {
      this.workEndedSinceCheck = false;
      return true;
    }
    const { graph } = this.req;
    const works = (id: string): boolean => {
      const node = graph.nodes.get(id);
      return node !== undefined && doesWork(node);
    };
    for (const id of this.running.keys()) if (works(id)) return true;
    return nextSteps(graph, this.states).runnable.some(works);
  }

  private async cancelled(): Promise<boolean> {
    const { control } = this.deps;
    return control !== undefined && this.req.executionId !== undefined && control.isCancelled(this.req.executionId);
  }

  private restore(cp: NodeCheckpoint): void {
    if (!this.req.graph.nodes.has(cp.nodeId)) return;
    this.restored.set(cp.nodeId, cp);
    if (cp.status !== 'awaiting_input') this.apply(cp);
  }

  /** Why a resume job cannot resume `nodeId`, or undefined when it can. */
  private checkResume(nodeId: string): string | undefined {
    const node = this.req.graph.nodes.get(nodeId);
    if (!node || !isUserInputNode(node)) return `Cannot resume: ${nodeId} is not a user_input_task node of this workflow`;
    const record = this.restored.get(nodeId);
    if (record?.status === 'awaiting_input' || record?.status === 'completed') return undefined;
    return `Cannot resume: node ${nodeId} is not awaiting user input in this execution`;
  }

  private setState(id: string, patch: Partial<TaskState>): void {
    const next: TaskState = { ...(this.states[id] ?? { status: 'pending' }), ...patch };
    for (const key of Object.keys(next) as (keyof TaskState)[]) if (next[key] === undefined) delete next[key];
    this.states[id] = next;
  }

  private progress(): void {
    this.req.onProgress?.(this.states);
  }

  private snapshot(): { outputs: Record<string, unknown>; taskStates: Record<string, TaskState> } {
    return { outputs: this.outputs, taskStates: this.states };
  }

  /** The earliest due parked node, brought forward to the next heartbeat and to the run's deadline. */
  private wakeAt(): Date {
    let at = this.now().getTime() + this.parking.heartbeatMs;
    for (const p of this.parked.values()) at = Math.min(at, p.due.getTime());
    if (this.req.deadline) at = Math.min(at, this.req.deadline.at.getTime());
    return new Date(at);
  }

  private outcome(): RunOutcome {
    if (this.infraError !== undefined) throw this.infraError;
    const reason: unknown = this.controller.signal.reason;
    if (reason instanceof RunAborted && (reason.kind === 'shutdown' || reason.kind === 'cancelled')) throw reason;
    if (this.failure) {
      // A parked node never ran to its end here: like a node abandoned for another's failure, it reads as not run.
      for (const id of this.parked.keys()) this.setState(id, { status: 'pending', result: null, error: null, started_at: undefined });
      return { status: 'failed', error: this.failure.error, errorType: this.failure.errorType, failedNode: this.failure.nodeId, ...this.snapshot() };
    }
    if (reason instanceof RunAborted && reason.kind === 'deadline') {
      // A node parked past the deadline (its wake-up is brought forward to it) fails with it.
      for (const id of this.parked.keys()) {
        this.deadlineNodes.push(id);
        this.setState(id, { status: 'failed', error: reason.message, error_type: 'deadline_exceeded', completed_at: this.now().toISOString() });
      }
      const nodes = this.deadlineNodes.length ? this.deadlineNodes : nextSteps(this.req.graph, this.states).runnable;
      return {
        status: 'failed',
        error: reason.message,
        errorType: 'deadline_exceeded',
        ...(nodes.length ? { failedNode: nodes.join(',') } : {}),
        ...this.snapshot(),
      };
    }
    if (this.parked.size) {
      // A pause elsewhere in the run is reported by the delivery that finds no node parked any more.
      return { status: 'parked', wakeAt: this.wakeAt(), parked: [...this.parked.values()], ...this.snapshot() };
    }
    if (this.pause) {
      return {
        status: 'awaiting_user_input',
        awaitingNode: this.pause.nodeId,
        inputSchema: this.pause.inputSchema,
        correlationToken: this.pause.token,
        awaitingSince: this.pause.since,
        ...this.snapshot(),
      };
    }
    if (isFinished(this.req.graph, this.states)) return { status: 'completed', ...this.snapshot() };
    const stuck = this.req.graph.order.filter((id) => this.states[id]?.status === 'pending');
    return { status: 'failed', error: `Workflow stopped with nodes that can never run: ${stuck.join(', ')}`, errorType: 'internal_error', ...this.snapshot() };
  }
}

/** A node completed by the execution a retry comes from, as the checkpoint it stands for. */
function priorCheckpoint(prior: PriorNode, node: WorkflowNode | undefined): NodeCheckpoint {
  return {
    nodeId: prior.nodeId,
    taskType: node ? executorIdOf(node) : 'unknown',
    status: 'completed',
    output: prior.output,
    error: null,
    errorType: null,
    correlationToken: null,
    startedAt: prior.startedAt,
    completedAt: prior.completedAt,
    cost: null,
  };
}
