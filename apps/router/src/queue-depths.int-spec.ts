import { deadLetterQueueOf, JobMessageV1, PUBLIC_API_QUEUES, QUEUES } from '@docflow/contracts';
import { Broker } from '@docflow/messaging';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { createTestVhost, type TestVhost } from '@docflow/testing';
import { startQueueDepths } from './queue-depths';
import { declareRouterQueues } from './topology';

jest.setTimeout(30000);

const job = (id: string): JobMessageV1 => ({ version: 1, job_id: id, job_type: 'document_extraction', payload: {}, submitted_at: new Date().toISOString() });

/** A series' value in Prometheus text, or undefined when the series is absent. */
function sample(text: string, name: string, queue: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`queue="${queue}"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** Issue #15 item 1 / #18 item 6: the router exports queue and dead-letter depths on /metrics. */
describe('router queue depths (RabbitMQ)', () => {
  let vhost: TestVhost;
  let broker: Broker;

  beforeAll(async () => {
    vhost = await createTestVhost('router_depths');
    broker = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'router-depths', reconnect: { initialMs: 50, maxMs: 500 } });
    await declareRouterQueues(broker);
    await broker.ready(10000);
  });

  afterAll(async () => {
    await broker?.close(3000);
    await vhost?.drop();
  });

  it('reads ready messages, consumers and dead letters per work queue, and drops the series of a queue it cannot read', async () => {
    for (const id of ['a', 'b', 'c']) await broker.publish(QUEUES.extraction, JobMessageV1, job(`depth_${id}`));
    await broker.publish(deadLetterQueueOf(QUEUES.workflow), JobMessageV1, job('depth_dead'));
    const metrics = new Metrics('router');
    const depths = startQueueDepths({ broker, metrics, logger: silentLogger, intervalMs: 60_000, queues: [QUEUES.workflow, QUEUES.extraction, 'never_declared_queue'] });
    try {
      await depths.refresh();
      const text = await metrics.render();
      expect(sample(text, 'docflow_queue_messages', QUEUES.extraction)).toBe(3);
      expect(sample(text, 'docflow_queue_messages', QUEUES.workflow)).toBe(0);
      expect(sample(text, 'docflow_queue_consumers', QUEUES.extraction)).toBe(0);
      expect(sample(text, 'docflow_queue_dlq_messages', QUEUES.workflow)).toBe(1);
      expect(sample(text, 'docflow_queue_dlq_messages', QUEUES.extraction)).toBe(0);
      expect(sample(text, 'docflow_queue_messages', 'never_declared_queue')).toBeUndefined();
      expect(sample(text, 'docflow_queue_dlq_messages', 'never_declared_queue')).toBeUndefined();

      // A consumer and one more dead letter show at the next reading.
      const consumer = broker.consume(QUEUES.workflow, JobMessageV1, async () => undefined);
      await broker.publish(deadLetterQueueOf(QUEUES.workflow), JobMessageV1, job('depth_dead_2'));
      await new Promise((r) => setTimeout(r, 200));
      await depths.refresh();
      const later = await metrics.render();
      expect(sample(later, 'docflow_queue_consumers', QUEUES.workflow)).toBe(1);
      expect(sample(later, 'docflow_queue_dlq_messages', QUEUES.workflow)).toBe(2);
      await consumer.cancel(1000);
    } finally {
      depths.stop();
    }
  });

  it("reads the public API's own work queues (RAG indexing, event bus) and their dead letters by default", async () => {
    // The public API declares them; the router only reads them.
    for (const queue of Object.values(PUBLIC_API_QUEUES)) await broker.assertWorkQueue(queue);
    await broker.publish(PUBLIC_API_QUEUES.ragIndex, JobMessageV1, job('depth_rag'));
    await broker.publish(deadLetterQueueOf(PUBLIC_API_QUEUES.eventBus), JobMessageV1, job('depth_bus_dead'));
    const metrics = new Metrics('router');
    const depths = startQueueDepths({ broker, metrics, logger: silentLogger, intervalMs: 60_000 });
    try {
      await depths.refresh();
      const text = await metrics.render();
      expect(sample(text, 'docflow_queue_messages', PUBLIC_API_QUEUES.ragIndex)).toBe(1);
      expect(sample(text, 'docflow_queue_dlq_messages', PUBLIC_API_QUEUES.ragIndex)).toBe(0);
      expect(sample(text, 'docflow_queue_messages', PUBLIC_API_QUEUES.eventBus)).toBe(0);
      expect(sample(text, 'docflow_queue_consumers', PUBLIC_API_QUEUES.eventBus)).toBe(0);
      expect(sample(text, 'docflow_queue_dlq_messages', PUBLIC_API_QUEUES.eventBus)).toBe(1);
      expect(sample(text, 'docflow_queue_messages', QUEUES.workflow)).toBeDefined();
    } finally {
      depths.stop();
    }
  });
});
