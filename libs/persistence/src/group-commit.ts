/** What a flush answers for one item: its value, or the error only that item's caller gets. */
export type ItemOutcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

export interface GroupCommitOptions {
  /** Most items in one flush (N); more wait for the next one. */
  maxItems: number;
  /**
   * How long a queue that has not reached maxItems may wait for more items
   * once the previous flush ended (≤ 2 ms; 0: none). An item arriving while
   * nothing is in flight never waits: it is flushed at once.
   */
  lingerMs: number;
  /**
   * An idle committer's first flush waits for the end of the current turn of
   * the event loop (setImmediate) instead of starting at once, so that items
   * submitted in one turn (callers resumed together by one commit) share it.
   * Default false.
   */
  gatherTurn?: boolean;
  /** The wait behind lingerMs; tests replace it with a promise they settle. */
  wait?: (ms: number) => Promise<void>;
}

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Group commit: items submitted while a flush is in flight are collected and
 * handed to the next flush together, so that N concurrent callers share one
 * transaction, one statement, one set of confirms instead of paying for N.
 * One flush runs at a time. Under light load an item finds nothing in flight
 * and is flushed alone at once: batching adds no wait where there is no
 * queue. A flush answers one outcome per item (in order); when it throws,
 * every item of that flush gets the error.
 */
export class GroupCommit<I, O> {
  private queue: Pending<I, O>[] = [];
  private running = false;
  private readonly wait: (ms: number) => Promise<void>;

  constructor(
    private readonly flush: (items: I[]) => Promise<ItemOutcome<O>[]>,
    private readonly options: GroupCommitOptions,
  ) {
    if (!Number.isInteger(options.maxItems) || options.maxItems < 1) throw new Error('maxItems must be a positive integer');
    if (!(options.lingerMs >= 0 && options.lingerMs <= 2)) throw new Error('lingerMs must be between 0 and 2');
    this.wait = options.wait ?? sleep;
  }

  /** Items waiting for a flush (not counting the one in flight). */
  get queued(): number {
    return this.queue.length;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.running) return;
      this.running = true;
      if (this.options.gatherTurn) setImmediate(() => void this.drain());
      else void this.drain();
    });
  }

  /** Flushes until the queue is empty; the first flush (an idle committer's) starts at once, or at the end of the turn (gatherTurn). */
  private async drain(): Promise<void> {
    try {
      let first = true;
      while (this.queue.length > 0) {
        // A queue formed behind a flush may wait a little for more, unless it is full already.
        if (!first && this.options.lingerMs > 0 && this.queue.length < this.options.maxItems) await this.wait(this.options.lingerMs);
        first = false;
        const batch = this.queue.splice(0, this.options.maxItems);
        await this.flushBatch(batch);
      }
    } finally {
      this.running = false;
    }
  }

  private async flushBatch(batch: Pending<I, O>[]): Promise<void> {
    let outcomes: ItemOutcome<O>[];
    try {
      outcomes = await this.flush(batch.map((p) => p.item));
      if (outcomes.length !== batch.length) throw new Error(`flush answered ${outcomes.length} outcomes for ${batch.length} items`);
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i] as ItemOutcome<O>;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
  }
}
