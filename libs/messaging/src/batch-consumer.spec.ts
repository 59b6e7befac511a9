import type { Channel } from 'amqplib';
import { IsInt, Min } from 'class-validator';
import { BatchConsumer } from './batch-consumer';
import { NonRetryableMessageError } from './errors';
import type { BatchItem } from './types';
import { FakeChannel } from './test-support/fake-channel';
import { fakeHost } from './test-support/fake-host';

class Item {
  @IsInt() @Min(0) n!: number;
}

const macrotask = () => new Promise((r) => setImmediate(r));
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await macrotask();
}

function setUp(handler: (batch: readonly BatchItem<Item>[]) => Promise<void>, opts: { maxBatch?: number; lingerMs?: number } = {}) {
  const sleeps: { ms: number; wake(): void }[] = [];
  const host = fakeHost({ sleep: (ms) => new Promise<void>((wake) => sleeps.push({ ms, wake })) });
  const consumer = new BatchConsumer(host, 'q', Item, handler, 10, opts.maxBatch ?? 5, opts.lingerMs ?? 0);
  const channel = new FakeChannel();
  return { consumer, channel, sleeps, attach: () => consumer.attach(1, channel as unknown as Channel) };
}

describe('BatchConsumer', () => {
  it('hands over what arrived together as one batch and acks it with one multiple-ack; a lone message goes at once', async () => {
    const batches: number[][] = [];
    const t = setUp(async (batch) => void batches.push(batch.map((b) => b.msg.n)));
    await t.attach();
    for (const n of [1, 2, 3]) t.channel.deliver({ n });
    await settle();
    t.channel.deliver({ n: 4 });
    await settle();
    expect(batches).toEqual([[1, 2, 3], [4]]);
    expect(t.channel.settled).toEqual(['ack 3 multiple', 'ack 4']);
  });

  it('with a linger, waits that long after the oldest delivery for more, counted from the oldest', async () => {
    const batches: number[][] = [];
    const t = setUp(async (batch) => void batches.push(batch.map((b) => b.msg.n)), { lingerMs: 60 });
    await t.attach();
    const start = performance.now();
    t.channel.deliver({ n: 1 });
    await settle();
    expect(batches).toEqual([]);
    await new Promise((r) => setTimeout(r, 20));
    t.channel.deliver({ n: 2 });
    t.channel.deliver({ n: 3 });
    while (batches.length === 0 && performance.now() - start < 2000) await new Promise((r) => setTimeout(r, 5));
    const waited = performance.now() - start;
    expect(batches).toEqual([[1, 2, 3]]);
    expect(waited).toBeGreaterThanOrEqual(55);
    expect(t.channel.settled).toEqual(['ack 3 multiple']);
  });

  it('with a linger, a full batch goes at once', async () => {
    const batches: number[][] = [];
    const t = setUp(async (batch) => void batches.push(batch.map((b) => b.msg.n)), { maxBatch: 3, lingerMs: 10_000 });
    await t.attach();
    for (const n of [1, 2, 3, 4]) t.channel.deliver({ n });
    await settle();
    expect(batches).toEqual([[1, 2, 3]]);
    expect(t.channel.settled).toEqual(['ack 3 multiple']);
    await t.consumer.stop();
    await settle();
    // Stopping requeues what waits for its linger at once.
    expect(t.channel.settled).toEqual(['ack 3 multiple', 'requeue 4']);
  });

  it('takes at most maxBatch at once and the rest after', async () => {
    const batches: number[][] = [];
    const t = setUp(async (batch) => void batches.push(batch.map((b) => b.msg.n)), { maxBatch: 2 });
    await t.attach();
    for (const n of [1, 2, 3, 4, 5]) t.channel.deliver({ n });
    await settle();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    expect(t.channel.settled).toEqual(['ack 2 multiple', 'ack 4 multiple', 'ack 5']);
  });

  it('dead-letters a message that fails its contract and acks the rest of the batch', async () => {
    const batches: number[][] = [];
    const t = setUp(async (batch) => void batches.push(batch.map((b) => b.msg.n)));
    await t.attach();
    t.channel.deliver({ n: 1 });
    t.channel.deliver('not json');
    t.channel.deliver({ n: -5 });
    t.channel.deliver({ n: 4 });
    await settle();
    expect(batches).toEqual([[1, 4]]);
    expect(t.channel.settled).toEqual(['reject 2', 'reject 3', 'ack 4 multiple']);
  });

  it('after a failed batch applies each message alone: the others are acked, a refused one dead-lettered, a failing one requeued after its delay', async () => {
    const applied: number[] = [];
    const t = setUp(async (batch) => {
      // All or nothing, like a transaction: a bad message anywhere fails the whole batch.
      if (batch.some((b) => b.msg.n === 2)) throw new NonRetryableMessageError('never');
      if (batch.some((b) => b.msg.n === 3)) throw new Error('database down');
      applied.push(...batch.map((b) => b.msg.n));
    });
    await t.attach();
    for (const n of [1, 2, 3, 4]) t.channel.deliver({ n });
    await settle();
    expect(applied).toEqual([1, 4]);
    expect(t.channel.settled).toEqual(['ack 1', 'reject 2', 'ack 4']);
    expect(t.sleeps.map((s) => s.ms)).toEqual([10]);
    // The next batch does not wait for the requeue, and while message 3 is unsettled it is acked message by message.
    t.channel.deliver({ n: 5 });
    t.channel.deliver({ n: 6 });
    await settle();
    expect(applied).toEqual([1, 4, 5, 6]);
    expect(t.channel.settled).toEqual(['ack 1', 'reject 2', 'ack 4', 'ack 5', 'ack 6']);
    t.sleeps[0]?.wake();
    await settle();
    expect(t.channel.settled.slice(5)).toEqual(['requeue 3']);
    t.channel.deliver({ n: 7 });
    t.channel.deliver({ n: 8 });
    await settle();
    expect(t.channel.settled.slice(6)).toEqual(['ack 8 multiple']);
  });

  it('runs one batch at a time: what arrives meanwhile waits for the next', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const batches: number[][] = [];
    const t = setUp(async (batch) => {
      batches.push(batch.map((b) => b.msg.n));
      if (batches.length === 1) await gate;
    });
    await t.attach();
    t.channel.deliver({ n: 1 });
    await settle();
    t.channel.deliver({ n: 2 });
    t.channel.deliver({ n: 3 });
    await settle();
    expect(batches).toEqual([[1]]);
    expect(t.channel.settled).toEqual([]);
    release();
    await settle();
    expect(batches).toEqual([[1], [2, 3]]);
    expect(t.channel.settled).toEqual(['ack 1', 'ack 3 multiple']);
  });
});
