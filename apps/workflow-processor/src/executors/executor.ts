import type { ErrorType } from '@docflow/contracts';
import type { Logger } from '@docflow/service-kit';
import type { TemplateScope } from '@docflow/workflow';
import type { ShieldPolicy } from './ai/data-shield/shield-policy';

/** Everything an executor learns about the node it runs. */
export interface NodeContext {
  executionKey: string;
  jobId: string;
  executionId?: number;
  /**
   * The user the run acts for, from the signed job alone (never from the
   * scope, inputs or a node's config); undefined for a job that names none.
   */
  runUserId?: number;
  nodeId: string;
  /** `start`, `end`, `input`, `output` or `task`. */
  nodeType: string;
  /** The registry id (`decision` for the `decision_task` alias, `custom_task` for control nodes). */
  taskType: string;
  label: string;
  /** The node's config with its `{{templates}}` resolved against `scope`. */
  config: Record<string, unknown>;
  /** The node's config as written (decisions resolve their own operands). */
  rawConfig: Record<string, unknown>;
  /** Inputs + context (user_id, execution_id) + upstream outputs by node id. */
  scope: TemplateScope;
  inputs: Record<string, unknown>;
  /** Aborted on the deadline, on shutdown, or when another node failed. */
  signal: AbortSignal;
  /** The run's logger (job and execution ids); add the node id to the metadata of each line. */
  logger: Logger;
  /** For a user_input_task being resumed by this job: the resume payload. */
  resumePayload?: Record<string, unknown>;
  /** The activity's `data_shield_policy` (spec 2.5), when it has one. */
  dataShieldPolicy?: ShieldPolicy;
  /**
   * Whether the node may answer with a ParkOutcome: the run then ends
   * without holding its message and is woken when the node is due (issue
   * #15 item 3). False when the processor has no park store.
   */
  canPark?: boolean;
  /** For a node woken from a park: the `state` it parked with. */
  parkedState?: unknown;
}

/** A finished node: its output (and what it cost, for LLM nodes). */
export interface CompletedOutcome {
  output: unknown;
  cost?: number;
}

/** A user_input_task asking the run to pause until a resume job brings the payload. */
export interface PauseOutcome {
  pause: { inputSchema: Record<string, unknown> };
}

/**
 * A node with nothing to do until `until` (a wait_task between polls): the
 * engine parks it with `state`, and a later delivery runs the executor again
 * with `parkedState` set to that state.
 */
export interface ParkOutcome {
  park: { until: Date; state: unknown };
}

export type ExecutorOutcome = CompletedOutcome | PauseOutcome | ParkOutcome;

export type TaskExecutor = (ctx: NodeContext) => Promise<ExecutorOutcome>;

export function isPause(outcome: ExecutorOutcome): outcome is PauseOutcome {
  return 'pause' in outcome;
}

export function isPark(outcome: ExecutorOutcome): outcome is ParkOutcome {
  return 'park' in outcome;
}

/**
 * A node failed for a reason the workflow author can read: the message
 * becomes the node's and the execution's `error`. `result` is kept as the
 * node's result (a wait_task reports `status: failure` this way).
 */
export class NodeFailure extends Error {
  override readonly name = 'NodeFailure';

  constructor(
    readonly errorType: ErrorType,
    message: string,
    readonly result?: unknown,
    /** Trying again may succeed (REST 429/5xx, network, timeouts): a node's `retry` policy applies (issue #15). */
    readonly transient = false,
  ) {
    super(message);
  }
}
