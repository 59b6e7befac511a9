import { Worker } from 'node:worker_threads';
import { ServiceUnavailableError } from '@docflow/service-kit';

/** One bcrypt operation, run by a worker thread with bcryptjs's synchronous functions. */
export type PasswordJob = { op: 'hash'; password: string; cost: number } | { op: 'compare'; password: string; hash: string };

export interface PasswordPoolOptions {
  /** Worker threads (PASSWORD_HASH_THREADS). */
  threads: number;
  /** Jobs that may wait for a thread; one more is refused with 503 (PASSWORD_HASH_MAX_QUEUE). */
  maxQueue: number;
}

/**
 * bcryptjs is pure JavaScript: on the API's thread one compare at cost 10
 * holds the event loop for tens of milliseconds, so a burst of logins (a
 * credential-stuffing run, or just many users) would stall every other
 * request. Hashing therefore runs on a few worker threads; jobs beyond them
 * wait in a bounded queue, and beyond that a login is refused with 503 and
 * Retry-After rather than queued without end. The worker is JavaScript
 * evaluated from a string that loads bcryptjs by absolute path, so it runs
 * the same under jest and in the esbuild bundle (where node_modules stay
 * external). Idle threads are unref'd: they never keep a process alive.
 */
const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', (job) => {
  try {
    const result = job.op === 'hash' ? bcrypt.hashSync(job.password, job.cost) : bcrypt.compareSync(job.password, job.hash);
    parentPort.postMessage({ ok: true, result });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});
`;

interface Task {
  job: PasswordJob;
  resolve(value: string | boolean): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  task?: Task;
}

export class PasswordPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private closed = false;

  constructor(private readonly options: PasswordPoolOptions) {}

  run(job: PasswordJob): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new Error('password pool is closed'));
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new ServiceUnavailableError('Too many password checks are waiting; retry shortly', { retry_after: 1 }, 'busy'));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  /** Jobs waiting for a thread. */
  get waiting(): number {
    return this.queue.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('password pool is closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.task) ?? (this.slots.length < this.options.threads ? this.spawn() : undefined);
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.ref();
      slot.worker.postMessage(task.job);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptjs: require.resolve('bcryptjs') } });
    const slot: Slot = { worker };
    worker.on('message', (msg: { ok: boolean; result?: string | boolean; error?: string }) => {
      const task = slot.task;
      slot.task = undefined;
      worker.unref();
      if (task) {
        if (msg.ok) task.resolve(msg.result as string | boolean);
        else task.reject(new Error(msg.error));
      }
      this.dispatch();
    });
    // A thread that dies fails its job and leaves its place to a new one.
    const retire = (err: Error) => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      slot.task?.reject(err);
      slot.task = undefined;
      if (!this.closed) this.dispatch();
    };
    worker.on('error', retire);
    worker.on('exit', (code) => retire(new Error(`password worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }
}
