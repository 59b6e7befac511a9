import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import request from 'supertest';
import { createHttpApp, Metrics, silentLogger } from '@docflow/service-kit';
import { startTelemetry, type Telemetry } from '@docflow/telemetry';
import { HttpTarget } from '@docflow/testing';
import { InternalHttpClient } from './internal-http-client';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/** A service (service-kit's HTTP app) whose route calls the target through an InternalHttpClient. */
function service(client: InternalHttpClient) {
  return createHttpApp({ logger: silentLogger, metrics: new Metrics('test'), health: [], errorStyle: 'internal' }, (app) => {
    app.get('/things/:id', async (req, res) => {
      const answer = await client.request({ method: 'GET', path: `/upstream/${req.params['id']}` });
      res.status(answer.status === 200 ? 200 : 502).json({ upstream: answer.status });
    });
  });
}

describe('traces through the HTTP app and InternalHttpClient', () => {
  let target: HttpTarget;
  let client: InternalHttpClient;

  beforeAll(async () => {
    target = await HttpTarget.start();
    target.onPattern('GET', /^\/upstream\/(\w+)$/, (hit) => ({ status: hit.params[0] === 'broken' ? 503 : 200, body: {} }));
    client = new InternalHttpClient({ service: 'router', baseUrl: target.url(''), auth: { kind: 'service-key', key: 'k' }, timeoutMs: 5000 });
  });

  afterAll(async () => {
    client.close();
    await target.stop();
  });

  it('sends no traceparent while tracing is off, even when the caller sent one', async () => {
    await request(service(client)).get('/things/off').set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN}-01`).expect(200);
    expect(target.hitsOf('/upstream/off').at(-1)!.headers['traceparent']).toBeUndefined();
  });

  describe('with tracing on', () => {
    let exporter: InMemorySpanExporter;
    let telemetry: Telemetry;

    beforeAll(() => {
      exporter = new InMemorySpanExporter();
      telemetry = startTelemetry({ service: 'http-test', exporter });
    });

    afterAll(async () => {
      await telemetry.shutdown();
    });

    beforeEach(() => exporter.reset());

    it('serves a request in a server span named by its route, child of the caller, and calls out in its client span', async () => {
      await request(service(client)).get('/things/42').set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN}-01`).expect(200);
      await telemetry.flush();
      const spans = exporter.getFinishedSpans();
      const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
      const outgoing = spans.find((s) => s.kind === SpanKind.CLIENT)!;
      expect(server.name).toBe('GET /things/:id');
      expect(server.spanContext().traceId).toBe(TRACE_ID);
      expect(server.parentSpanContext?.spanId).toBe(CALLER_SPAN);
      expect(server.attributes).toMatchObject({ 'http.route': '/things/:id', 'http.response.status_code': 200 });
      expect(outgoing.name).toBe('GET router');
      expect(outgoing.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(outgoing.attributes).toMatchObject({ 'url.path': '/upstream/42', 'http.response.status_code': 200, 'peer.service': 'router' });
      expect(target.hitsOf('/upstream/42').at(-1)!.headers['traceparent']).toBe(`00-${TRACE_ID}-${outgoing.spanContext().spanId}-01`);
    });

    it('marks a 5xx answer and a 5xx response as errors; health probes make no span', async () => {
      const app = service(client);
      await request(app).get('/things/broken').expect(502);
      await request(app).get('/_health').expect(204);
      await telemetry.flush();
      const spans = exporter.getFinishedSpans();
      expect(spans.map((s) => [s.name, s.status.code])).toEqual([
        ['GET router', SpanStatusCode.ERROR],
        ['GET /things/:id', SpanStatusCode.ERROR],
      ]);
      // Without a caller's traceparent the server span starts the trace.
      expect(spans[1]!.parentSpanContext).toBeUndefined();
    });
  });
});
