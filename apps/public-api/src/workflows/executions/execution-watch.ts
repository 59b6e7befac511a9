/** The channel the `workflow_executions_changed` trigger notifies with an execution id. */
export const EXECUTION_CHANGED_CHANNEL = 'docflow_execution_changed';

/** While no LISTEN is in effect, waiters re-read at this interval instead of being woken. */
const FALLBACK_POLL_MS = 1000;

/**
 * Wakes long polls and event streams when an execution changes. Fed by a
 * LISTEN on {@link EXECUTION_CHANGED_CHANNEL} (server.ts), so a change
 * committed by any process wakes the waiters of every process. While the
 * listener is down (or in a process that has none) a wait lasts at most
 * {@link FALLBACK_POLL_MS}, so callers re-read and never miss a change.
 */
export class ExecutionWatch {
  private readonly waiters = new Map<number, Set<() => void>>();
  private live = false;

  /** Resolves when execution `id` changes, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  changed(id: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      const own = set;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        own.delete(done);
        if (own.size === 0 && this.waiters.get(id) === own) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, this.live ? timeoutMs : Math.min(timeoutMs, FALLBACK_POLL_MS));
      signal?.addEventListener('abort', done, { once: true });
      own.add(done);
    });
  }

  /** A notification's payload is the execution id. */
  onNotification(payload: string): void {
    const id = Number(payload);
    const set = Number.isSafeInteger(id) ? this.waiters.get(id) : undefined;
    if (set) for (const wake of [...set]) wake();
  }

  /** Losing the listener wakes everyone: what changed meanwhile was not announced. */
  setLive(live: boolean): void {
    this.live = live;
    if (!live) for (const set of [...this.waiters.values()]) for (const wake of [...set]) wake();
  }

  /** Waiters at this moment (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }
}
