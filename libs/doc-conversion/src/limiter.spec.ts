import { ConverterUnavailableError } from './errors';
import { ConcurrencyLimiter } from './limiter';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('ConcurrencyLimiter', () => {
  it('runs at most `concurrency` tasks at once, the rest in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      limiter.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect({ active: limiter.active, queued: limiter.queued }).toEqual({ active: 2, queued: 2 });
    gates[1]!.resolve();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    gates[3]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect({ active: limiter.active, queued: limiter.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('frees the slot when a task fails', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limiter.run(() => Promise.resolve('next'))).resolves.toBe('next');
    expect(limiter.active).toBe(0);
  });

  it('refuses new work when the queue is full', async () => {
    const limiter = new ConcurrencyLimiter(1, 1);
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const second = limiter.run(() => Promise.resolve());
    await expect(limiter.run(() => Promise.resolve())).rejects.toBeInstanceOf(ConverterUnavailableError);
    gate.resolve();
    await Promise.all([first, second]);
  });

  it('refuses a concurrency below 1', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(RangeError);
  });
});
