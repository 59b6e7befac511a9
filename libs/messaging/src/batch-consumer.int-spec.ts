import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { IsInt, IsString, Min } from 'class-validator';
import { silentLogger } from '@docflow/service-kit';
import { createTestVhost, TestVhost } from '@docflow/testing';
import { Broker } from './broker';
import { BrokerUnavailableError, NonRetryableMessageError } from './errors';
import { getRaw, publishRaw } from './raw-publish';

const run = promisify(execFile);
jest.setTimeout(30000);

class Ping {
  @IsString() text!: string;
  @IsInt() @Min(0) n!: number;
}

/** Polls until `ok()` holds, bounded (RabbitMQ offers no event for "a message reached this queue"). */
async function until(ok: () => Promise<boolean> | boolean, ms = 15000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Broker batches and the results exchange (RabbitMQ)', () => {
  let vhost: TestVhost;
  let broker: Broker;

  beforeAll(async () => {
    vhost = await createTestVhost('docflow_batch');
    broker = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'batch-int-spec', reconnect: { initialMs: 50, maxMs: 500 }, requeueDelayMs: 10 });
    await broker.ready(10000);
  });

  afterAll(async () => {
    await broker?.close(5000);
    await vhost?.drop();
  });

  const count = async (queue: string) => (await broker.checkQueue(queue)).messageCount;

  it('hands over what the prefetch window holds in batches, every message once, and acks them all', async () => {
    await broker.assertWorkQueue('batched');
    await Promise.all(Array.from({ length: 40 }, (_, n) => broker.publish('batched', Ping, { text: 'x', n })));
    const sizes: number[] = [];
    const seen: number[] = [];
    const handle = broker.consumeBatch(
      'batched',
      Ping,
      async (batch) => {
        sizes.push(batch.length);
        seen.push(...batch.map((b) => b.msg.n));
      },
      { prefetch: 20, maxBatch: 10 },
    );
    await until(() => seen.length === 40);
    // Closing the channel would give back anything left unacked.
    await handle.cancel();
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10);
    expect(await count('batched')).toBe(0);
  });

  it('with a linger, gathers messages published apart into one batch, acks it, and requeues nothing', async () => {
    await broker.assertWorkQueue('lingered');
    const batches: number[][] = [];
    const handle = broker.consumeBatch(
      'lingered',
      Ping,
      async (batch) => {
        batches.push(batch.map((b) => b.msg.n));
      },
      { prefetch: 20, maxBatch: 10, lingerMs: 400 },
    );
    await broker.publish('lingered', Ping, { text: 'x', n: 1 });
    await new Promise((r) => setTimeout(r, 100));
    await broker.publish('lingered', Ping, { text: 'x', n: 2 });
    await broker.publish('lingered', Ping, { text: 'x', n: 3 });
    await until(() => batches.length > 0);
    await handle.cancel();
    expect(batches).toEqual([[1, 2, 3]]);
    expect(await count('lingered')).toBe(0);
  });

  it('acks the jobs of a consumer with coalesced acks once each, whatever order they finish in, and nothing comes back', async () => {
    await broker.assertWorkQueue('coalesced');
    await Promise.all(Array.from({ length: 30 }, (_, n) => broker.publish('coalesced', Ping, { text: 'x', n })));
    const seen: number[] = [];
    const handle = broker.consume(
      'coalesced',
      Ping,
      async (msg) => {
        // Out of order: odd messages take longer.
        await new Promise((r) => setTimeout(r, msg.n % 2 ? 20 : 1));
        seen.push(msg.n);
      },
      { prefetch: 10, coalesceAcks: true },
    );
    await until(() => seen.length === 30);
    await handle.cancel();
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, n) => n));
    // Every message acked: none ready again after the channel closed (an unacked one would be requeued).
    expect(await count('coalesced')).toBe(0);
    const again: number[] = [];
    const second = broker.consume('coalesced', Ping, async (msg) => void again.push(msg.n), { prefetch: 10 });
    await new Promise((r) => setTimeout(r, 300));
    await second.cancel();
    expect(again).toEqual([]);
  });

  it('dead-letters invalid messages, applies the rest of a failed batch alone, and retries a failing one until it succeeds, each applied once', async () => {
    await broker.assertWorkQueue('mixed');
    const applied: number[] = [];
    let failuresLeft = 2;
    const handle = broker.consumeBatch(
      'mixed',
      Ping,
      async (batch) => {
        // All or nothing, as a transaction would be.
        if (batch.some((b) => b.msg.n === 13)) throw new NonRetryableMessageError('unlucky');
        if (batch.some((b) => b.msg.n === 7) && failuresLeft > 0) {
          failuresLeft -= 1;
          throw new Error('database briefly down');
        }
        applied.push(...batch.map((b) => b.msg.n));
      },
      { prefetch: 20 },
    );
    await publishRaw(vhost.url, 'mixed', 'not json');
    await Promise.all([1, 7, 13, 20].map((n) => broker.publish('mixed', Ping, { text: 'x', n })));
    await until(() => applied.length === 3);
    await until(async () => (await count('mixed.dlq')) === 2);
    await handle.cancel();
    expect([...applied].sort((a, b) => a - b)).toEqual([1, 7, 20]);
    expect(await count('mixed')).toBe(0);
  });

  it('dead-letters a message whose batch keeps failing once its delivery limit is reached', async () => {
    await broker.assertWorkQueue('doomed_batch', { deliveryLimit: 2 });
    const deliveries: number[] = [];
    const handle = broker.consumeBatch('doomed_batch', Ping, async (batch) => {
      deliveries.push(...batch.map((b) => b.meta.deliveryCount));
      throw new Error('always fails');
    });
    await broker.publish('doomed_batch', Ping, { text: 'x', n: 1 });
    await until(async () => (await count('doomed_batch.dlq')) === 1);
    await handle.cancel();
    expect(deliveries).toEqual([1, 2, 3]);
  });

  it('publishes once to a fanout exchange that puts the message on every bound queue', async () => {
    await broker.assertWorkQueue('fan_a');
    await broker.assertWorkQueue('fan_b');
    await broker.assertFanoutExchange('test.fanout', ['fan_a', 'fan_b']);
    await broker.publish('fan_a', Ping, { text: 'both', n: 5 }, { exchange: 'test.fanout', messageId: 'fan-1', headers: { marker: 'yes' } });
    for (const q of ['fan_a', 'fan_b']) {
      const got = await getRaw(vhost.url, q);
      expect(JSON.parse(got?.content.toString() ?? '{}')).toEqual({ text: 'both', n: 5 });
      expect(got?.properties.headers?.['marker']).toBe('yes');
    }
    await expect(broker.assertFanoutExchange('test.fanout', ['never_asserted'])).rejects.toThrow('assertWorkQueue(never_asserted)');
  });

  it('refuses a publish that its exchange routes to no queue', async () => {
    await broker.assertWorkQueue('lonely');
    await broker.assertFanoutExchange('test.lonely', ['lonely']);
    // Deleted behind the broker's back (no consumer, so nothing reconnects and re-declares it).
    await run('rabbitmqctl', ['-q', 'delete_queue', '-p', vhost.name, 'lonely']);
    const err = await broker.publish('lonely', Ping, { text: 'x', n: 1 }, { exchange: 'test.lonely' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerUnavailableError);
    expect((err as Error).message).toBe('Exchange test.lonely routes lonely to no queue');
  });
});
