import { connect } from 'amqplib';
import { coalesceWrites } from './broker';

/**
 * Test support only (not exported from the library): puts raw bytes on a
 * queue, bypassing validation, to prove that consumers reject what does not
 * match its contract.
 */
export async function publishRaw(url: string, queue: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<void> {
  const conn = await connect(url);
  conn.on('error', () => undefined);
  try {
    const ch = await conn.createConfirmChannel();
    ch.on('error', () => undefined);
    ch.sendToQueue(queue, Buffer.isBuffer(body) ? body : Buffer.from(body), { persistent: true, headers });
    await ch.waitForConfirms();
  } finally {
    await conn.close();
  }
}

/** Test support only: takes one message off a queue as it lies there (properties included), or null when empty. */
export async function getRaw(url: string, queue: string): Promise<{ properties: { correlationId?: string; headers?: Record<string, unknown> }; content: Buffer } | null> {
  const conn = await connect(url);
  conn.on('error', () => undefined);
  try {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined);
    const got = await ch.get(queue, { noAck: true });
    return got === false ? null : { properties: got.properties as { correlationId?: string; headers?: Record<string, unknown> }, content: got.content };
  } finally {
    await conn.close();
  }
}

/**
 * Test support: on a plain amqplib connection, whether coalesceWrites takes, then `n` publishes of one turn on a
 * confirm channel (written as one batch when it took) and the count the queue then holds.
 */
export async function coalescedBurst(url: string, queue: string, n: number): Promise<{ coalesced: boolean; messageCount: number }> {
  const conn = await connect(url);
  conn.on('error', () => undefined);
  try {
    const coalesced = coalesceWrites(conn);
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue(queue, { durable: false });
    for (let i = 0; i < n; i++) ch.sendToQueue(queue, Buffer.from(String(i)));
    await ch.waitForConfirms();
    const { messageCount } = await ch.checkQueue(queue);
    await ch.close();
    return { coalesced, messageCount };
  } finally {
    await conn.close();
  }
}
