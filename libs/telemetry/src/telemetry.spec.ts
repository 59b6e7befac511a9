import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { activeTraceIds, endSpan, startTelemetry, tracesUrl, tracingEnabled, withIncomingSpan, withOutgoingSpan } from './telemetry';

const INCOMING = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('telemetry', () => {
  it('builds the traces URL from the endpoint as the OTLP specification does', () => {
    expect(tracesUrl('http://collector:4318')).toBe('http://collector:4318/v1/traces');
    expect(tracesUrl('http://collector:4318/otlp/')).toBe('http://collector:4318/otlp/v1/traces');
  });

  it('without an endpoint registers nothing: no headers, no span, no trace ids', async () => {
    const telemetry = startTelemetry({ service: 'test' });
    expect(telemetry.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
    const seen = await withOutgoingSpan('GET x', 'client', {}, async (headers, span) => ({ headers: { ...headers }, span }));
    expect(seen).toEqual({ headers: {}, span: undefined });
    withIncomingSpan('GET /', 'server', { traceparent: INCOMING }, {}, (span) => {
      expect(span).toBeUndefined();
      expect(activeTraceIds()).toBeUndefined();
      expect(trace.getActiveSpan()).toBeUndefined();
    });
    await telemetry.shutdown();
  });

  describe('with an exporter', () => {
    let exporter: InMemorySpanExporter;
    let telemetry: ReturnType<typeof startTelemetry>;

    beforeEach(() => {
      exporter = new InMemorySpanExporter();
      telemetry = startTelemetry({ service: 'unit-service', exporter });
    });

    afterEach(async () => {
      await telemetry.shutdown();
      expect(tracingEnabled()).toBe(false);
    });

    it('continues an incoming traceparent and injects its child into outgoing headers', async () => {
      expect(tracingEnabled()).toBe(true);
      const sent = await withIncomingSpan('POST /things', 'server', { traceparent: INCOMING }, { 'http.request.method': 'POST' }, async (span) => {
        const ids = activeTraceIds();
        const headers = await withOutgoingSpan('POST router', 'client', {}, async (h) => ({ ...h }));
        endSpan(span);
        return { ids, headers };
      });
      await telemetry.flush();
      const spans = exporter.getFinishedSpans();
      const server = spans.find((s) => s.name === 'POST /things')!;
      const client = spans.find((s) => s.name === 'POST router')!;
      expect(server.resource.attributes['service.name']).toBe('unit-service');
      expect(server.kind).toBe(SpanKind.SERVER);
      expect(server.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
      expect(server.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
      expect(sent.ids).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: server.spanContext().spanId });
      expect(client.kind).toBe(SpanKind.CLIENT);
      expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      // What goes on the wire names the client span as the parent of whatever the callee does.
      expect(sent.headers['traceparent']).toBe(`00-0af7651916cd43dd8448eb211c80319c-${client.spanContext().spanId}-01`);
    });

    it('starts a new trace for a request without traceparent, and accepts AMQP header values as Buffers', async () => {
      withIncomingSpan('GET /', 'server', {}, {}, (span) => endSpan(span));
      withIncomingSpan('process q', 'consumer', { traceparent: Buffer.from(INCOMING) }, {}, (span) => endSpan(span));
      await telemetry.flush();
      const [root, consumed] = exporter.getFinishedSpans();
      expect(root?.parentSpanContext).toBeUndefined();
      expect(root?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(root?.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
      expect(consumed?.kind).toBe(SpanKind.CONSUMER);
      expect(consumed?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    });

    it('marks the span of a failed outgoing call as an error and rethrows', async () => {
      await expect(withOutgoingSpan('publish q', 'producer', {}, () => Promise.reject(new Error('no broker')))).rejects.toThrow('no broker');
      await telemetry.flush();
      const [span] = exporter.getFinishedSpans();
      expect(span).toMatchObject({ name: 'publish q', kind: SpanKind.PRODUCER, status: { code: SpanStatusCode.ERROR, message: 'no broker' } });
      expect(span?.parentSpanContext).toBeUndefined();
    });
  });
});
