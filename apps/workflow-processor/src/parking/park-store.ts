import type { JobMessageV1 } from '@docflow/contracts';

/**
 * What the engine keeps of a parked node (issue #15 item 3): a wait between
 * polls, or a retry backoff, long enough that holding the job's message for
 * it would pin a processor slot and could outlive RabbitMQ's
 * consumer_timeout. The job is acked; a wake-up re-publishes it at `due`.
 */
export interface ParkedNode {
  nodeId: string;
  /** When the node wants to run again (its next poll or its next attempt). */
  due: Date;
  /** The node's attempt number when it parked for a retry backoff (1-based). */
  attempt: number;
  /** What the node's executor asked to get back (a wait's start time, last value ...). */
  state: unknown;
}

/** The parked nodes of one execution, read by the engine at the start of a delivery. */
export interface ParkedNodeSource {
  loadParked(executionKey: string): Promise<ParkedNode[]>;
}

/** A due wake-up: the job to re-publish to workflow_queue. */
export interface DueWakeUp {
  executionKey: string;
  job: JobMessageV1;
}

/** The durable side of parking: the table `workflow_parked_nodes` (or memory in unit tests). */
export interface ParkStore extends ParkedNodeSource {
  /**
   * Replaces the parked nodes of an execution by `nodes` and schedules its
   * wake-up at `wakeAt` with `job` as the message to re-publish then.
   */
  park(executionKey: string, job: JobMessageV1, nodes: readonly ParkedNode[], wakeAt: Date): Promise<void>;
  /** Forgets an execution's parked nodes and wake-up (it ended, or was cancelled). */
  clear(executionKey: string): Promise<void>;
  /**
   * Claims up to `limit` due wake-ups (rows locked with SKIP LOCKED, so
   * replicas share them), hands each to `publish` and marks them woken
   * once all were published. When a publish throws, the whole pass stays
   * due: a job published twice runs once from its checkpoints.
   */
  wakeDue(limit: number, publish: (wake: DueWakeUp) => Promise<void>): Promise<number>;
}
