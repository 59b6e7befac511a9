import type { CheckpointStore, NodeCheckpoint } from '../checkpoints/checkpoint-store';

/** CheckpointStore in memory, with the same first-terminal-record-wins rule as the table, and call counts. */
export class MemoryCheckpoints implements CheckpointStore {
  readonly rows = new Map<string, Map<string, NodeCheckpoint>>();
  readonly calls = { load: 0, saveTerminal: 0, savePause: 0 };
  failWrites: Error | undefined;

  private of(key: string): Map<string, NodeCheckpoint> {
    let m = this.rows.get(key);
    if (!m) this.rows.set(key, (m = new Map()));
    return m;
  }

  get totalCalls(): number {
    return this.calls.load + this.calls.saveTerminal + this.calls.savePause;
  }

  async load(key: string): Promise<NodeCheckpoint[]> {
    this.calls.load += 1;
    return [...this.of(key).values()].map((c) => ({ ...c }));
  }

  async saveTerminal(key: string, _jobId: string, cp: NodeCheckpoint): Promise<NodeCheckpoint> {
    this.calls.saveTerminal += 1;
    if (this.failWrites) throw this.failWrites;
    const rows = this.of(key);
    const existing = rows.get(cp.nodeId);
    if (existing && existing.status !== 'awaiting_input') return { ...existing };
    rows.set(cp.nodeId, { ...cp, correlationToken: null });
    return { ...cp, correlationToken: null };
  }

  async savePause(key: string, _jobId: string, cp: NodeCheckpoint): Promise<NodeCheckpoint> {
    this.calls.savePause += 1;
    if (this.failWrites) throw this.failWrites;
    const rows = this.of(key);
    const existing = rows.get(cp.nodeId);
    if (existing) return { ...existing };
    rows.set(cp.nodeId, { ...cp });
    return { ...cp };
  }
}
