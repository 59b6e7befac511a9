import type { CheckpointStore, NodeCheckpoint } from '../checkpoints/checkpoint-store';

/** Wraps a CheckpointStore and counts the calls that reach it. */
export class CountingCheckpoints implements CheckpointStore {
  calls = 0;

  constructor(private readonly inner: CheckpointStore) {}

  load(key: string): Promise<NodeCheckpoint[]> {
    this.calls += 1;
    return this.inner.load(key);
  }

  saveTerminal(key: string, jobId: string, cp: NodeCheckpoint): Promise<NodeCheckpoint> {
    this.calls += 1;
    return this.inner.saveTerminal(key, jobId, cp);
  }

  savePause(key: string, jobId: string, cp: NodeCheckpoint): Promise<NodeCheckpoint> {
    this.calls += 1;
    return this.inner.savePause(key, jobId, cp);
  }
}
