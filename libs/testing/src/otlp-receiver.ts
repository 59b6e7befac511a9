import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** OTLP span kinds (opentelemetry-proto trace.proto). */
export const OTLP_SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** One span as received, flattened: its resource's service name and its attributes as plain values. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 2 = error (trace.proto Status.StatusCode). */
  statusCode: number;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function plain(value: OtlpValue | undefined): string | number | boolean {
  if (!value) return '';
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return '';
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, plain(a.value)]));
}

/**
 * A loopback OTLP/HTTP trace receiver for tests: point
 * OTEL_EXPORTER_OTLP_ENDPOINT at `endpoint` and read `spans`. It takes the
 * JSON encoding (what `@opentelemetry/exporter-trace-otlp-http` posts),
 * gzipped or not; a protobuf body is refused with 415, so a test set up
 * with the wrong exporter fails instead of seeing no spans.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Export requests received (each holds one batch). */
  exports = 0;

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OtlpReceiver> {
    const holder: { self?: OtlpReceiver } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => holder.self?.receive(req, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.self = new OtlpReceiver(server);
    return holder.self;
  }

  /** The base URL (the exporter appends /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every span of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private receive(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse): void {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/traces') return reply(404, { error: 'not found' });
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return reply(415, { error: 'this receiver takes OTLP/HTTP JSON only' });
    let parsed: OtlpExport;
    try {
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      parsed = JSON.parse(body.toString('utf8')) as OtlpExport;
    } catch {
      return reply(400, { error: 'body is not OTLP JSON' });
    }
    this.exports += 1;
    for (const rs of parsed.resourceSpans ?? []) {
      const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            service,
            traceId: s.traceId ?? '',
            spanId: s.spanId ?? '',
            parentSpanId: s.parentSpanId ?? '',
            name: s.name ?? '',
            kind: s.kind ?? 0,
            attributes: attributesOf(s.attributes),
            statusCode: s.status?.code ?? 0,
          });
        }
      }
    }
    reply(200, {});
  }
}
