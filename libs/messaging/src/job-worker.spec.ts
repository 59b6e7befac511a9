import type { MessageHandler } from './types';
import { InFlightJobs, JobWorker } from './job-worker';
import type { ConsumerHandle, MessageMeta } from './types';

class Job {
  id = '';
}

const meta: MessageMeta = { deliveryCount: 1, redelivered: false, headers: {}, correlationId: 'c', messageId: 'm', queue: 'q' };

/** Stands in for Broker.consume: records the subscription and what cancel() was given. */
class FakeBroker {
  handler: MessageHandler<Job> | undefined;
  subscriptions = 0;
  cancelledWith: number[] = [];
  consume(queue: string, _cls: unknown, handler: MessageHandler<Job>, opts: { prefetch?: number }): ConsumerHandle {
    this.subscriptions++;
    this.handler = handler;
    expect([queue, opts.prefetch]).toEqual(['work_queue', 3]);
    return { queue, isActive: () => true, cancel: async (ms?: number) => void this.cancelledWith.push(ms ?? -1) };
  }
}

describe('JobWorker', () => {
  it('consumes once, counts running jobs, and on stop cancels with the drain time, aborts what still runs with its reason and waits for it', async () => {
    const broker = new FakeBroker();
    const jobs = new InFlightJobs();
    const seen: unknown[] = [];
    const handle = jobs.handler<Job>(
      (job) =>
        new Promise<void>((resolve) =>
          jobs.signal.addEventListener('abort', () => {
            seen.push([job.id, jobs.signal.reason]);
            resolve();
          }),
        ),
    );
    const reason = new Error('shutting down');
    const worker = new JobWorker({ broker: broker as never, queue: 'work_queue', message: Job, handle, prefetch: 3, jobs, shutdownReason: () => reason });
    worker.start();
    worker.start();
    expect(broker.subscriptions).toBe(1);

    const running = [broker.handler!(Object.assign(new Job(), { id: 'a' }), meta), broker.handler!(Object.assign(new Job(), { id: 'b' }), meta)];
    expect(worker.inFlight).toBe(2);
    await worker.stop(500, 1000);
    await Promise.all(running);
    expect(broker.cancelledWith).toEqual([500]);
    expect(seen).toEqual([
      ['a', reason],
      ['b', reason],
    ]);
    expect(worker.inFlight).toBe(0);
  });

  it('counts a job that fails until it settles, and idle() gives up after its time', async () => {
    const jobs = new InFlightJobs();
    let fail: (err: Error) => void = () => undefined;
    const failing = jobs.handler<Job>(() => new Promise<void>((_resolve, reject) => (fail = reject)))(new Job(), meta);
    expect(jobs.size).toBe(1);
    await jobs.idle(20);
    expect(jobs.size).toBe(1);
    fail(new Error('boom'));
    await expect(failing).rejects.toThrow('boom');
    await jobs.idle(1000);
    expect(jobs.size).toBe(0);
  });
});
