import type { Channel } from 'amqplib';
import { IsInt, Min } from 'class-validator';
import { Consumer } from './consumer';
import { NonRetryableMessageError } from './errors';
import { FakeChannel } from './test-support/fake-channel';
import { fakeHost } from './test-support/fake-host';

class Item {
  @IsInt() @Min(0) n!: number;
}

const macrotask = () => new Promise((r) => setImmediate(r));
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await macrotask();
}

/** A consumer whose handler for message n waits until `finish(n)` (or throws what `fail(n)` gives). */
function setUp(coalesceAcks: boolean) {
  const waiting = new Map<number, { resolve(): void; reject(err: unknown): void }>();
  const handler = (msg: Item) => new Promise<void>((resolve, reject) => waiting.set(msg.n, { resolve, reject }));
  const consumer = new Consumer(fakeHost(), 'q', Item, handler, 16, coalesceAcks);
  const channel = new FakeChannel();
  return {
    consumer,
    channel,
    attach: () => consumer.attach(1, channel as unknown as Channel),
    finish: (...ns: number[]) => ns.forEach((n) => waiting.get(n)?.resolve()),
    fail: (n: number, err: unknown) => waiting.get(n)?.reject(err),
  };
}

describe('Consumer', () => {
  it('acks each message on its own by default', async () => {
    const t = setUp(false);
    await t.attach();
    for (const n of [1, 2, 3]) t.channel.deliver({ n });
    await settle();
    t.finish(1, 2, 3);
    await settle();
    expect(t.channel.settled).toEqual(['ack 1', 'ack 2', 'ack 3']);
  });

  it('with coalesceAcks, acks the messages handled together with no unsettled one below them as one multiple-ack', async () => {
    const t = setUp(true);
    await t.attach();
    for (const n of [1, 2, 3, 4, 5]) t.channel.deliver({ n });
    await settle();
    // 1, 2 and 4 finish together (one synchronous resolve); 3 is still running, so 4 cannot be covered by a multiple-ack.
    t.finish(2, 1, 4);
    await settle();
    expect(t.channel.settled).toEqual(['ack 2 multiple', 'ack 4']);
    t.finish(3);
    await settle();
    expect(t.channel.settled).toEqual(['ack 2 multiple', 'ack 4', 'ack 3']);
    // 5 alone: a single ack.
    t.finish(5);
    await settle();
    expect(t.channel.settled).toEqual(['ack 2 multiple', 'ack 4', 'ack 3', 'ack 5']);
  });

  it('with coalesceAcks, a message settled otherwise below the handled ones does not hold their multiple-ack back', async () => {
    const t = setUp(true);
    await t.attach();
    for (const n of [1, 2, 3]) t.channel.deliver({ n });
    t.channel.deliver({ n: -1 }); // tag 4: fails its contract, dead-lettered at once
    t.channel.deliver({ n: 5 }); // tag 5
    await settle();
    t.fail(1, new NonRetryableMessageError('refused'));
    await settle();
    t.finish(2, 3, 5);
    await settle();
    expect(t.channel.settled).toEqual(['reject 4', 'reject 1', 'ack 5 multiple']);
  });

  it('with coalesceAcks, sends the acks still waiting before its channel closes', async () => {
    const t = setUp(true);
    await t.attach();
    for (const n of [1, 2]) t.channel.deliver({ n });
    await settle();
    t.finish(1, 2);
    // The handlers' promise callbacks run, and the channel is closed in the same drain, before the acks' flush.
    await Promise.resolve();
    await Promise.resolve();
    await Promise.resolve();
    await t.consumer.closeChannel();
    expect(t.channel.settled).toEqual(['ack 2 multiple', 'close']);
  });
});
