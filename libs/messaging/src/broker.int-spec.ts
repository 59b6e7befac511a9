import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { IsInt, IsString, Min } from 'class-validator';
import { currentContext, runWithContext, silentLogger } from '@docflow/service-kit';
import { createTestVhost, TestVhost } from '@docflow/testing';
import { Broker } from './broker';
import { BrokerUnavailableError, InvalidMessageError, NonRetryableMessageError } from './errors';
import { coalescedBurst, getRaw, publishRaw } from './raw-publish';
import type { BrokerState, MessageMeta } from './types';

const run = promisify(execFile);
jest.setTimeout(30000);

class Ping {
  @IsString() text!: string;
  @IsInt() @Min(0) n!: number;
}

/** A promise settled from outside, failing after `ms` so no test waits forever. */
function deferred<T>(ms = 15000, what = 'event'): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void;
  let timer: NodeJS.Timeout;
  const promise = new Promise<T>((res, rej) => {
    timer = setTimeout(() => rej(new Error(`timed out waiting for ${what}`)), ms);
    resolve = (v) => {
      clearTimeout(timer);
      res(v);
    };
  });
  return { promise, resolve };
}

/** Polls a broker-side count (RabbitMQ offers no event for "a message reached this queue"), bounded. */
async function waitForCount(read: () => Promise<number>, expected: number, ms = 15000): Promise<number> {
  const until = Date.now() + ms;
  let last = await read();
  while (last !== expected && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

function nextState(broker: Broker, wanted: BrokerState, ms = 20000): Promise<void> {
  const d = deferred<void>(ms, `broker ${wanted}`);
  const off = broker.onStateChange((s) => {
    if (s === wanted) {
      off();
      d.resolve();
    }
  });
  return d.promise;
}

describe('Broker (RabbitMQ)', () => {
  let vhost: TestVhost;
  let broker: Broker;

  beforeAll(async () => {
    vhost = await createTestVhost('docflow_msg');
    broker = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'messaging-int-spec', reconnect: { initialMs: 50, maxMs: 500 }, requeueDelayMs: 10 });
    await broker.ready(10000);
  });

  afterAll(async () => {
    await broker?.close(5000);
    await vhost?.drop();
  });

  it('round-trips a validated message with headers, ids and the correlation context', async () => {
    await broker.assertWorkQueue('roundtrip');
    const got = deferred<{ msg: Ping; meta: MessageMeta; ctx: unknown }>();
    const handle = broker.consume('roundtrip', Ping, async (msg, meta) => got.resolve({ msg, meta, ctx: currentContext() }));
    await runWithContext({ correlationId: 'corr-123' }, () => broker.publish('roundtrip', Ping, { text: 'hi', n: 7 }, { headers: { tenant: 'acme' }, messageId: 'msg-1' }));
    const { msg, meta, ctx } = await got.promise;
    expect(msg).toBeInstanceOf(Ping);
    expect(msg).toEqual({ text: 'hi', n: 7 });
    expect(meta).toMatchObject({ deliveryCount: 1, redelivered: false, correlationId: 'corr-123', messageId: 'msg-1', queue: 'roundtrip', kind: 'Ping' });
    expect(meta.headers).toMatchObject({ tenant: 'acme', kind: 'Ping', 'x-correlation-id': 'corr-123' });
    expect(ctx).toEqual({ correlationId: 'corr-123', messageId: 'msg-1' });
    expect(handle.isActive()).toBe(true);
    await handle.cancel();
    expect(handle.isActive()).toBe(false);
    expect(await broker.checkQueue('roundtrip')).toEqual({ messageCount: 0, consumerCount: 0 });
  });

  it('coalesces the frames of one turn on the installed amqplib, and they still arrive', async () => {
    // coalesced false would mean amqplib's internals moved and every frame is written on its own again.
    expect(await coalescedBurst(vhost.url, 'coalesced', 20)).toEqual({ coalesced: true, messageCount: 20 });
  });

  it('sets the AMQP correlation-id property as well as the header', async () => {
    await broker.assertWorkQueue('corr_props');
    await runWithContext({ correlationId: 'corr-prop-9' }, () => broker.publish('corr_props', Ping, { text: 'x', n: 1 }));
    const got = await getRaw(vhost.url, 'corr_props');
    expect(got?.properties.correlationId).toBe('corr-prop-9');
    expect(got?.properties.headers?.['x-correlation-id']).toBe('corr-prop-9');
  });

  it('refuses to publish an invalid message and sends nothing', async () => {
    await broker.assertWorkQueue('invalid_out');
    const bad = { text: 5, n: -1 } as unknown as Ping;
    const err = await broker.publish('invalid_out', Ping, bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidMessageError);
    expect((err as InvalidMessageError).status).toBe(400);
    expect((err as InvalidMessageError).errors).toHaveLength(2);
    expect((await broker.checkQueue('invalid_out')).messageCount).toBe(0);
  });

  it('rejects a publish to a queue that does not exist', async () => {
    await expect(broker.publish('no_such_queue', Ping, { text: 'x', n: 1 })).rejects.toThrow('Queue no_such_queue does not exist');
  });

  it('dead-letters malformed and invalid messages and keeps consuming', async () => {
    await broker.assertWorkQueue('inbox');
    const handled: number[] = [];
    const third = deferred<void>();
    const handle = broker.consume('inbox', Ping, async (msg) => {
      handled.push(msg.n);
      if (msg.n === 3) third.resolve();
    });
    await publishRaw(vhost.url, 'inbox', 'this is not json');
    await publishRaw(vhost.url, 'inbox', JSON.stringify({ text: 'no number' }));
    await broker.publish('inbox', Ping, { text: 'ok', n: 3 });
    await third.promise;
    expect(handled).toEqual([3]);
    expect(await waitForCount(async () => (await broker.checkQueue('inbox.dlq')).messageCount, 2)).toBe(2);
    expect((await broker.checkQueue('inbox')).messageCount).toBe(0);
    await handle.cancel();
  });

  it('retries a failing handler and dead-letters the message after the delivery limit', async () => {
    await broker.assertWorkQueue('flaky', { deliveryLimit: 2 });
    const counts: number[] = [];
    const handle = broker.consume('flaky', Ping, async (_msg, meta) => {
      counts.push(meta.deliveryCount);
      throw new Error('always fails');
    });
    await broker.publish('flaky', Ping, { text: 'doomed', n: 1 });
    expect(await waitForCount(async () => (await broker.checkQueue('flaky.dlq')).messageCount, 1)).toBe(1);
    await handle.cancel();
    expect(counts).toEqual([1, 2, 3]);
    expect((await broker.checkQueue('flaky')).messageCount).toBe(0);
  });

  it('dead-letters at once when the handler says the message can never succeed', async () => {
    await broker.assertWorkQueue('final');
    let calls = 0;
    const handle = broker.consume('final', Ping, async () => {
      calls += 1;
      throw new NonRetryableMessageError('unknown kind');
    });
    await broker.publish('final', Ping, { text: 'x', n: 1 });
    expect(await waitForCount(async () => (await broker.checkQueue('final.dlq')).messageCount, 1)).toBe(1);
    await handle.cancel();
    expect(calls).toBe(1);
  });

  it('reconnects after the broker drops its connections, keeping consumers', async () => {
    await broker.assertWorkQueue('survivor');
    const received: number[] = [];
    const second = deferred<void>(20000, 'message after reconnect');
    const handle = broker.consume('survivor', Ping, async (msg) => {
      received.push(msg.n);
      if (msg.n === 2) second.resolve();
    });
    await broker.publish('survivor', Ping, { text: 'before', n: 1 });
    const down = nextState(broker, 'disconnected');
    const up = nextState(broker, 'connected');
    await run('rabbitmqctl', ['-q', 'close_all_connections', '-p', vhost.name, 'integration test']);
    await down;
    await up;
    expect(broker.isConnected()).toBe(true);
    await broker.publish('survivor', Ping, { text: 'after', n: 2 });
    await second.promise;
    expect(received).toEqual([1, 2]);
    expect(handle.isActive()).toBe(true);
    await handle.cancel();
  });

  it('re-declares a queue deleted under its consumer and resumes consuming', async () => {
    await broker.assertWorkQueue('phoenix');
    const got = deferred<number>(20000, 'message on re-declared queue');
    const handle = broker.consume('phoenix', Ping, async (msg) => got.resolve(msg.n));
    const up = nextState(broker, 'connected');
    await run('rabbitmqctl', ['-q', 'delete_queue', '-p', vhost.name, 'phoenix']);
    await up;
    expect((await broker.checkQueue('phoenix')).consumerCount).toBe(1);
    await broker.publish('phoenix', Ping, { text: 'reborn', n: 42 });
    expect(await got.promise).toBe(42);
    await handle.cancel();
  });

  it('finishes and acks an in-flight message on close, then refuses to publish', async () => {
    const local = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'closing', reconnect: { initialMs: 50, maxMs: 500 } });
    await local.ready(10000);
    await local.assertWorkQueue('graceful');
    const started = deferred<void>();
    let finished = false;
    local.consume('graceful', Ping, async () => {
      started.resolve();
      // Slow work: still running when the subscription is cancelled.
      await new Promise((r) => setTimeout(r, 300));
      finished = true;
    });
    await local.publish('graceful', Ping, { text: 'slow', n: 1 });
    await started.promise;
    await local.close(10000);
    expect(finished).toBe(true);
    expect(local.isConnected()).toBe(false);
    await expect(local.publish('graceful', Ping, { text: 'late', n: 2 })).rejects.toBeInstanceOf(BrokerUnavailableError);
    expect(await broker.checkQueue('graceful')).toEqual({ messageCount: 0, consumerCount: 0 });
  });

  it('reports unavailable while it cannot reach the broker', async () => {
    const offline = Broker.connect({ url: 'amqp://guest:guest@127.0.0.1:1', logger: silentLogger, name: 'offline', reconnect: { initialMs: 50, maxMs: 200 } });
    try {
      expect(offline.isConnected()).toBe(false);
      const err = await offline.publish('anything', Ping, { text: 'x', n: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BrokerUnavailableError);
      expect((err as BrokerUnavailableError).status).toBe(503);
      await expect(offline.healthCheck().check()).rejects.toThrow('not connected to the message broker');
      await expect(offline.ready(300)).rejects.toBeInstanceOf(BrokerUnavailableError);
    } finally {
      await offline.close(1000);
    }
    await expect(offline.ready()).rejects.toThrow('closed');
  });
});
