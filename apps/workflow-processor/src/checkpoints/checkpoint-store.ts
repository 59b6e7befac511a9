/** What the engine keeps of a task node across deliveries of its execution. */
export type CheckpointStatus = 'completed' | 'failed' | 'awaiting_input';

export interface NodeCheckpoint {
  nodeId: string;
  taskType: string;
  status: CheckpointStatus;
  output: unknown;
  error: string | null;
  errorType: string | null;
  /** Set while the node awaits user input; a secret, never logged. */
  correlationToken: string | null;
  startedAt: Date;
  completedAt: Date | null;
  cost: number | null;
}

/**
 * Durable per-node checkpoints, keyed by execution. A terminal record
 * (completed or failed) is written once and never replaced: when two
 * deliveries race, the first record wins and both continue from it.
 */
export interface CheckpointStore {
  load(executionKey: string): Promise<NodeCheckpoint[]>;
  /** Stores a completed or failed node (replacing only a pause record); returns the record now stored. */
  saveTerminal(executionKey: string, jobId: string, checkpoint: NodeCheckpoint): Promise<NodeCheckpoint>;
  /** Stores a pause unless the node already has a record; returns the record now stored. */
  savePause(executionKey: string, jobId: string, checkpoint: NodeCheckpoint): Promise<NodeCheckpoint>;
}
