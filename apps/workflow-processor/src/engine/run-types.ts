import type { ErrorType, TaskState } from '@docflow/contracts';
import type { MessageMeta } from '@docflow/messaging';
import type { Logger } from '@docflow/service-kit';
import type { WorkflowGraph } from '@docflow/workflow';
import type { ShieldPolicy } from '../executors/ai/data-shield/shield-policy';
import type { PriorNode } from '../jobs/workflow-job';
import type { ParkedNode } from '../parking/park-store';

/** One delivery of a workflow job, ready to run. */
export interface RunRequest {
  jobId: string;
  /** Checkpoint key: `execution:<id>`, or `job:<job id without the resume suffix>`. */
  executionKey: string;
  executionId?: number;
  userId?: number;
  graph: WorkflowGraph;
  inputs: Record<string, unknown>;
  deadline?: { at: Date; text: string };
  resume?: { nodeId: string; payload: Record<string, unknown> };
  /** The activity's `data_shield_policy`, passed to every node (spec 2.5, 4.17 rule 7). */
  dataShieldPolicy?: ShieldPolicy;
  /** Nodes completed by the failed execution this run retries: restored as completed, never run again. */
  prior?: PriorNode[];
  meta: MessageMeta;
  /** Aborted with RunAborted('shutdown') when the processor stops: the run ends without a result and the job is requeued. */
  stopSignal: AbortSignal;
  logger: Logger;
  /**
   * The read of whether the execution was cancelled, sent when the job was
   * delivered (while it was validated); the run awaits it where it would
   * otherwise read, before it runs anything. Without it, the run reads then.
   * A graph of control and decision nodes reads nothing and leaves it unawaited.
   */
  cancelRead?: Promise<boolean>;
  /** Called with the live task states when a task node starts or ends. */
  onProgress?: (taskStates: Readonly<Record<string, TaskState>>) => void;
}

export interface RunSnapshot {
  outputs: Record<string, unknown>;
  taskStates: Record<string, TaskState>;
}

export type RunOutcome =
  | ({ status: 'completed' } & RunSnapshot)
  | ({ status: 'failed'; error: string; errorType: ErrorType; failedNode?: string } & RunSnapshot)
  | ({
      status: 'awaiting_user_input';
      awaitingNode: string;
      inputSchema: Record<string, unknown>;
      correlationToken: string;
      awaitingSince: Date;
    } & RunSnapshot)
  /** Nothing left to run but parked nodes: the job is acked and re-published at `wakeAt` (issue #15 item 3). */
  | ({ status: 'parked'; wakeAt: Date; parked: ParkedNode[] } & RunSnapshot);
