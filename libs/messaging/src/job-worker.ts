import { setMaxListeners } from 'node:events';
import type { Broker } from './broker';
import type { ConsumerHandle, MessageHandler } from './types';

/**
 * The jobs a worker is running: each handler call is tracked while it runs,
 * and `signal` is aborted (with the worker's reason) when shutdown stops
 * what is still running, so the handlers end without a result and their
 * messages go back to the queue.
 */
export class InFlightJobs {
  private readonly running = new Set<Promise<unknown>>();
  private readonly stopping = new AbortController();

  constructor() {
    // Every running job listens on this one signal.
    setMaxListeners(0, this.stopping.signal);
  }

  /** Aborted by abortAll(). */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  get size(): number {
    return this.running.size;
  }

  /** The handler, each call counted as in flight until it settles. */
  handler<M>(handle: MessageHandler<M>): MessageHandler<M> {
    return (msg, meta) => {
      const promise = handle(msg, meta);
      const tracked: Promise<void> = promise.then(
        () => void this.running.delete(tracked),
        () => void this.running.delete(tracked),
      );
      this.running.add(tracked);
      return promise;
    };
  }

  /** Stops every running job: `signal` is aborted with `reason`. */
  abortAll(reason: unknown): void {
    this.stopping.abort(reason);
  }

  /** Resolves when nothing runs, or after `ms`. */
  async idle(ms: number): Promise<void> {
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.running]), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    if (timer) clearTimeout(timer);
  }
}

export interface JobWorkerOptions<M extends object> {
  broker: Pick<Broker, 'consume'>;
  queue: string;
  /** The contract class every message is validated with before `handle` sees it. */
  message: new () => M;
  /** Made by `jobs.handler(...)`, so that its calls are counted; it reads `jobs.signal` to stop on shutdown. */
  handle: MessageHandler<M>;
  prefetch: number;
  /** Acks of handlers that finish together sent together (ConsumeOptions.coalesceAcks). */
  coalesceAcks?: boolean;
  /** The running jobs. */
  jobs: InFlightJobs;
  /** Why running jobs are stopped at shutdown (the abort reason their signal carries). */
  shutdownReason: () => unknown;
}

/**
 * A processor's consumer of one work queue, with the shutdown every
 * processor needs (STYLE.md, Lifecycle): stop pulling, let running jobs
 * finish for a while, close the channel (unacknowledged jobs go back to
 * the queue), then stop what still runs and wait briefly for it.
 */
export class JobWorker<M extends object> {
  private consumer: ConsumerHandle | undefined;

  constructor(private readonly options: JobWorkerOptions<M>) {}

  get inFlight(): number {
    return this.options.jobs.size;
  }

  /** Subscribes (the queue must have been asserted); a second call does nothing. */
  start(): void {
    if (this.consumer) return;
    const { broker, queue, message, handle, prefetch, coalesceAcks } = this.options;
    this.consumer = broker.consume(queue, message, handle, { prefetch, ...(coalesceAcks ? { coalesceAcks } : {}) });
  }

  /** Stops consuming, lets running jobs finish for up to `drainMs`, then aborts the rest and waits up to `settleMs` for them. */
  async stop(drainMs: number, settleMs = 2000): Promise<void> {
    const active = this.consumer;
    this.consumer = undefined;
    if (active) await active.cancel(drainMs);
    this.options.jobs.abortAll(this.options.shutdownReason());
    await this.options.jobs.idle(settleMs);
  }
}
