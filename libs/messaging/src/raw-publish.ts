import { connect } from 'amqplib';

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
