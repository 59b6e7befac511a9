import { ConverterUnavailableError } from './errors';

/**
 * Runs at most `concurrency` tasks at once; the rest wait in FIFO order. When
 * `maxQueued` tasks are already waiting, run() refuses at once with
 * ConverterUnavailableError rather than growing the queue without bound.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxQueued: number = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxQueued) throw new ConverterUnavailableError('Too many documents are waiting for conversion');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; `running` only drops when nobody waits.
      if (next) next();
      else this.running -= 1;
    }
  }
}
