import amqp from 'amqplib';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Ready-message count of a queue, from a passive declare (rabbitmqctl's
 * statistics lag by seconds; the declare answers from the queue itself).
 */
export async function queueDepth(amqpUrl: string, queue: string): Promise<number> {
  const conn = await amqp.connect(amqpUrl);
  try {
    const ch = await conn.createChannel();
    const { messageCount } = await ch.checkQueue(queue);
    await ch.close();
    return messageCount;
  } finally {
    await conn.close();
  }
}

export async function stopBroker(): Promise<void> {
  await run('rabbitmqctl', ['-q', 'stop_app']);
}

export async function startBroker(): Promise<void> {
  await run('rabbitmqctl', ['-q', 'start_app']);
  await run('rabbitmqctl', ['-q', 'await_startup']);
}

/**
 * The body of the first ready message of a queue, read and put back (a basic.get
 * without ack, then a requeueing nack): what a queue holds, without consuming it.
 */
export async function peekMessage(amqpUrl: string, queue: string): Promise<string | undefined> {
  const conn = await amqp.connect(amqpUrl);
  try {
    const ch = await conn.createChannel();
    const msg = await ch.get(queue, { noAck: false });
    if (msg === false) return undefined;
    const body = msg.content.toString('utf8');
    ch.nack(msg, false, true);
    await ch.close();
    return body;
  } finally {
    await conn.close();
  }
}
