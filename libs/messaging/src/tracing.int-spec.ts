import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { IsString } from 'class-validator';
import { currentCorrelationId, runWithContext, silentLogger } from '@docflow/service-kit';
import { startTelemetry, withIncomingSpan, endSpan, type Telemetry } from '@docflow/telemetry';
import { createTestVhost, TestVhost } from '@docflow/testing';
import { Broker } from './broker';
import { NonRetryableMessageError } from './errors';
import { getRaw } from './raw-publish';
import type { MessageMeta } from './types';

jest.setTimeout(30000);

class Note {
  @IsString() text!: string;
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/** Publishes `text` to `queue` as if inside a request that came with a traceparent and a correlation id. */
function publishInRequest(broker: Broker, queue: string, text: string, correlationId: string): Promise<void> {
  return withIncomingSpan('POST /notes', 'server', { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` }, {}, (span) =>
    runWithContext({ correlationId }, () => broker.publish(queue, Note, { text }).finally(() => endSpan(span))),
  );
}

describe('Broker with tracing on (RabbitMQ)', () => {
  let vhost: TestVhost;
  let broker: Broker;
  let exporter: InMemorySpanExporter;
  let telemetry: Telemetry;

  beforeAll(async () => {
    vhost = await createTestVhost('docflow_trace');
    exporter = new InMemorySpanExporter();
    telemetry = startTelemetry({ service: 'messaging-test', exporter });
    broker = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'tracing-test', requeueDelayMs: 10 });
    await broker.ready();
  });

  afterAll(async () => {
    await broker?.close();
    await telemetry?.shutdown();
    await vhost?.drop();
  });

  it('puts traceparent in the message headers and makes the consumer span the child of the publish span, with the correlation id', async () => {
    await broker.assertWorkQueue('trace_plain');
    await publishInRequest(broker, 'trace_plain', 'peek', 'corr-peek');
    const raw = await getRaw(vhost.url, 'trace_plain');
    await telemetry.flush();
    const publish = exporter.getFinishedSpans().find((s) => s.name === 'publish trace_plain')!;
    expect(publish.kind).toBe(SpanKind.PRODUCER);
    expect(publish.spanContext().traceId).toBe(TRACE_ID);
    expect(raw?.properties.headers).toMatchObject({ traceparent: `00-${TRACE_ID}-${publish.spanContext().spanId}-01`, 'x-correlation-id': 'corr-peek' });

    exporter.reset();
    const seen: { correlationId?: string; meta?: MessageMeta }[] = [];
    const handled = new Promise<void>((resolve) => {
      broker.consume('trace_plain', Note, async (_msg, meta) => {
        seen.push({ correlationId: currentCorrelationId(), meta });
        resolve();
      });
    });
    await publishInRequest(broker, 'trace_plain', 'hello', 'corr-hello');
    await handled;
    // The consumer span ends right after the ack.
    await new Promise((r) => setTimeout(r, 200));
    await telemetry.flush();
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.name === 'POST /notes')!;
    const producer = spans.find((s) => s.name === 'publish trace_plain')!;
    const consumer = spans.find((s) => s.name === 'process trace_plain')!;
    expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(producer.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(consumer.kind).toBe(SpanKind.CONSUMER);
    expect(consumer.spanContext().traceId).toBe(TRACE_ID);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(consumer.attributes).toMatchObject({ 'messaging.destination.name': 'trace_plain', 'docflow.correlation_id': 'corr-hello', 'docflow.message.outcome': 'ack' });
    expect(seen[0]?.correlationId).toBe('corr-hello');
  });

  it('marks the consumer span of a dead-lettered message as failed', async () => {
    await broker.assertWorkQueue('trace_reject');
    exporter.reset();
    const handled = new Promise<void>((resolve) => {
      broker.consume('trace_reject', Note, async () => {
        resolve();
        throw new NonRetryableMessageError('not for us');
      });
    });
    await publishInRequest(broker, 'trace_reject', 'bad', 'corr-bad');
    await handled;
    await new Promise((r) => setTimeout(r, 200));
    await telemetry.flush();
    const consumer = exporter.getFinishedSpans().find((s) => s.name === 'process trace_reject')!;
    expect(consumer.attributes['docflow.message.outcome']).toBe('reject');
    expect(consumer.status.code).toBe(SpanStatusCode.ERROR);
  });
});
