// Queue types: classic (v2) against quorum work queues on this single
// RabbitMQ, with what Docflow does with them (issue #16 item 3). On a vhost
// of its own, each type gets a durable work queue arranged as
// libs/messaging's workQueueDeclaration arranges ours (dead-lettering through
// the default exchange to a durable `<name>.dlq`; quorum with
// x-delivery-limit DEFAULT_DELIVERY_LIMIT, which classic queues do not
// support). For BENCH_MESSAGES messages (default 20,000) of about 1 KB of
// job JSON, published persistent and mandatory as Broker.publish does, two
// scenarios:
//   - confirm each: every publish waits for its confirm before the next;
//     then a consumer with prefetch 50 acks each message;
//   - batch 50: 50 publishes, then their confirms; then a consumer with
//     prefetch 50 acks every 50th message with multiple = true.
// Reports messages/s of each phase and RabbitMQ's CPU milliseconds per
// message (the beam process, from /proc), for each type, alternating the
// types' order over BENCH_ROUNDS rounds (default 2) so that drift shows. The
// broker is shared with whatever else runs on the machine: its CPU figures
// include that traffic, which the alternation makes visible.
// amqplib directly: Broker declares only quorum queues.
import { randomUUID } from 'node:crypto';
// eslint-disable-next-line no-restricted-imports -- Broker declares only quorum queues; this benchmark must declare classic ones too.
import { connect } from 'amqplib';
// eslint-disable-next-line no-restricted-imports -- as above.
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { DEFAULT_DELIVERY_LIMIT, deadLetterQueueOf } from '@docflow/contracts';
import { workQueueDeclaration } from '@docflow/messaging';
import { createTestVhost } from '@docflow/testing';
import { report, serverCpu } from './support';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const BATCH = 50;
const PREFETCH = 50;

type QueueType = 'classic' | 'quorum';

/** Our work-queue arguments for each type: quorum exactly as production declares them; classic v2 with the same dead-lettering and no delivery limit (classic queues have none). */
function queueArguments(type: QueueType, name: string): Record<string, string | number> {
  if (type === 'quorum') return workQueueDeclaration(name, { deliveryLimit: DEFAULT_DELIVERY_LIMIT }).arguments;
  return { 'x-queue-type': 'classic', 'x-queue-version': 2, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': deadLetterQueueOf(name) };
}

/** About 1 KB of JSON shaped like a workflow job message. */
function jobMessage(i: number): Buffer {
  const job = {
    job_id: `bench_${i}_${randomUUID()}`,
    job_type: 'task_based_workflow',
    user_id: 'f4b1c2de-0000-4000-8000-000000000001',
    payload: {
      execution_id: randomUUID(),
      workflow_definition: {
        nodes: [
          { id: 'start', type: 'start', data: { label: 'Start', task_type: 'custom_task', config: {} } },
          { id: 'decide', type: 'decision', data: { label: 'Decide', task_type: 'custom_task', config: { condition: 'inputs.amount > 100' } } },
          { id: 'end', type: 'end', data: { label: 'End', task_type: 'custom_task', config: {} } },
        ],
        edges: [
          { id: 'e1', source: 'start', target: 'decide' },
          { id: 'e2', source: 'decide', target: 'end' },
        ],
      },
      inputs: { amount: i % 250, note: 'x'.repeat(420) },
    },
  };
  return Buffer.from(JSON.stringify(job), 'utf8');
}

function publishOptions(): Record<string, unknown> {
  const id = randomUUID();
  return {
    persistent: true,
    mandatory: true,
    contentType: 'application/json',
    messageId: id,
    correlationId: id,
    type: 'JobMessage',
    appId: 'bench-queues',
    timestamp: Math.floor(Date.now() / 1000),
    headers: { 'x-correlation-id': id, kind: 'JobMessage' },
  };
}

function send(ch: ConfirmChannel, queue: string, body: Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    ch.sendToQueue(queue, body, publishOptions(), (err: unknown) => (err ? reject(new Error(`not confirmed: ${String(err)}`)) : resolve()));
  });
}

async function publishAll(ch: ConfirmChannel, queue: string, bodies: Buffer[], batch: number): Promise<void> {
  for (let i = 0; i < bodies.length; i += batch) {
    await Promise.all(bodies.slice(i, i + batch).map((b) => send(ch, queue, b)));
  }
}

/** Consumes `total` messages with prefetch 50; acks each, or every 50th (and the last) with multiple = true. */
async function consumeAll(conn: ChannelModel, queue: string, total: number, multiple: boolean): Promise<void> {
  const ch: Channel = await conn.createChannel();
  await ch.prefetch(PREFETCH);
  let seen = 0;
  let tag = '';
  await new Promise<void>((resolve, reject) => {
    ch.on('error', reject);
    ch.consume(
      queue,
      (msg: ConsumeMessage | null) => {
        if (!msg) return reject(new Error('consumer cancelled'));
        JSON.parse(msg.content.toString('utf8'));
        seen += 1;
        if (!multiple) ch.ack(msg);
        else if (seen % BATCH === 0 || seen === total) ch.ack(msg, true);
        if (seen === total) resolve();
      },
      { noAck: false },
    ).then((r) => (tag = r.consumerTag), reject);
  });
  await ch.cancel(tag);
  await ch.close();
}

interface Row extends Record<string, string | number> {
  round: number;
  type: QueueType;
  scenario: string;
  'publish msg/s': number;
  'publish rmq CPU ms/msg': number;
  'consume msg/s': number;
  'consume rmq CPU ms/msg': number;
}

async function measure<T>(fn: () => Promise<T>): Promise<{ seconds: number; cpuMs: number }> {
  const c0 = serverCpu().rabbitmq;
  const t0 = performance.now();
  await fn();
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, cpuMs: (serverCpu().rabbitmq - c0) * 1000 };
}

async function main(): Promise<void> {
  const vhost = await createTestVhost('docflow_bench_queues');
  let conn: ChannelModel | undefined;
  try {
    conn = await connect(vhost.url);
    const setup = await conn.createChannel();
    for (const type of ['classic', 'quorum'] as const) {
      const name = `bench_${type}_queue`;
      await setup.assertQueue(deadLetterQueueOf(name), { durable: true });
      await setup.assertQueue(name, { durable: true, arguments: queueArguments(type, name) });
    }
    await setup.close();
    const pub = await conn.createConfirmChannel();
    pub.on('return', (m: { fields: { routingKey: string } }) => {
      throw new Error(`unroutable message to ${m.fields.routingKey}`);
    });

    const bodies = Array.from({ length: MESSAGES }, (_, i) => jobMessage(i));
    const bytes = bodies.reduce((a, b) => a + b.length, 0) / bodies.length;
    // Warm-up: a few hundred of each through each queue.
    for (const type of ['classic', 'quorum'] as const) {
      await publishAll(pub, `bench_${type}_queue`, bodies.slice(0, 500), BATCH);
      await consumeAll(conn, `bench_${type}_queue`, 500, true);
    }

    const rows: Row[] = [];
    const scenarios = [
      { scenario: 'confirm each, ack each', batch: 1, multiple: false },
      { scenario: 'confirm per 50, multiple-ack per 50', batch: BATCH, multiple: true },
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      const order: QueueType[] = round % 2 === 1 ? ['classic', 'quorum'] : ['quorum', 'classic'];
      for (const s of scenarios) {
        for (const type of order) {
          const queue = `bench_${type}_queue`;
          const p = await measure(() => publishAll(pub, queue, bodies, s.batch));
          const c = await measure(() => consumeAll(conn!, queue, MESSAGES, s.multiple));
          const row: Row = {
            round,
            type,
            scenario: s.scenario,
            'publish msg/s': Math.round(MESSAGES / p.seconds),
            'publish rmq CPU ms/msg': +(p.cpuMs / MESSAGES).toFixed(3),
            'consume msg/s': Math.round(MESSAGES / c.seconds),
            'consume rmq CPU ms/msg': +(c.cpuMs / MESSAGES).toFixed(3),
          };
          rows.push(row);
          console.log(JSON.stringify(row));
        }
      }
    }
    const check = await conn.createChannel();
    for (const type of ['classic', 'quorum'] as const) {
      const q = await check.checkQueue(`bench_${type}_queue`);
      const d = await check.checkQueue(deadLetterQueueOf(`bench_${type}_queue`));
      if (q.messageCount !== 0 || d.messageCount !== 0) throw new Error(`${type}: ${q.messageCount} messages left, ${d.messageCount} dead-lettered`);
    }
    await check.close();
    await pub.close();
    report('queues', rows, { messages: MESSAGES, bytesPerMessage: Math.round(bytes), rounds: ROUNDS, batch: BATCH, prefetch: PREFETCH, deliveryLimit: DEFAULT_DELIVERY_LIMIT });
  } finally {
    await conn?.close().catch(() => undefined);
    await vhost.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
