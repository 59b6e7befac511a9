import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span, type TextMapGetter } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';

/**
 * Traces (issue #18 item 5): the official OpenTelemetry SDK, exporting
 * OTLP/HTTP (JSON) when OTEL_EXPORTER_OTLP_ENDPOINT is set, and nothing at
 * all otherwise. Spans are made at Docflow's three choke points, not by
 * patching Node's modules: the HTTP app every service serves (service-kit),
 * the one client every internal call goes through (internal-http) and the
 * one door to RabbitMQ (messaging). Each helper below returns at once when
 * tracing is off: no span object, no header, no context switch.
 */

export interface TelemetryOptions {
  /** `service.name` of every span (OTEL_SERVICE_NAME, or the service's own name). */
  service: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to `<endpoint>/v1/traces`. Unset: tracing is off. */
  endpoint?: string;
  /**
   * Tests in jest only: an exporter used instead of OTLP (the OTLP exporter
   * loads node:http with a dynamic import, which jest's module sandbox
   * refuses). The end-to-end suite exports OTLP from real processes.
   */
  exporter?: SpanExporter;
}

export interface Telemetry {
  readonly enabled: boolean;
  /** Exports the spans ended so far now rather than on the batch timer. */
  flush(): Promise<void>;
  /** Exports the spans still buffered, then stops (a service's last shutdown hook). */
  shutdown(): Promise<void>;
}

let provider: NodeTracerProvider | undefined;

/** True once startTelemetry registered an exporting provider in this process. */
export function tracingEnabled(): boolean {
  return provider !== undefined;
}

/** `<endpoint>/v1/traces`, as the OTLP exporter specification builds it from OTEL_EXPORTER_OTLP_ENDPOINT. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * Starts tracing for this process, first thing in a service's main.ts.
 * Without an endpoint it registers nothing: the OpenTelemetry API stays on
 * its no-op tracer and the span helpers below do nothing.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (!options.endpoint && !options.exporter) return { enabled: false, flush: () => Promise.resolve(), shutdown: () => Promise.resolve() };
  if (provider) throw new Error('telemetry is already started in this process');
  const exporter = options.exporter ?? new OTLPTraceExporter({ url: tracesUrl(options.endpoint ?? '') });
  const started = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.service }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // AsyncLocalStorage context manager, W3C trace-context and baggage propagators.
  started.register();
  provider = started;
  return {
    enabled: true,
    flush: () => started.forceFlush(),
    shutdown: async () => {
      if (provider !== started) return;
      provider = undefined;
      await started.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

const tracer = () => trace.getTracer('docflow');

/** Headers of an HTTP request or an AMQP message: values are strings, or Buffers for AMQP long strings. */
export type Carrier = Record<string, unknown>;

const getter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key] ?? carrier[key.toLowerCase()];
    if (typeof value === 'string') return value;
    if (Buffer.isBuffer(value)) return value.toString('utf8');
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    return undefined;
  },
};

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER } as const;

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Runs `fn` in a span that continues the trace whose W3C `traceparent` is in
 * `carrier` (a new trace without one): an incoming request (`server`) or a
 * consumed message (`consumer`). The caller ends the span with endSpan; it
 * is undefined when tracing is off.
 */
export function withIncomingSpan<T>(name: string, kind: 'server' | 'consumer', carrier: Carrier, attributes: Attributes, fn: (span: Span | undefined) => T): T {
  if (!provider) return fn(undefined);
  const parent = propagation.extract(ROOT_CONTEXT, carrier, getter);
  const span = tracer().startSpan(name, { kind: KINDS[kind], attributes }, parent);
  return context.with(trace.setSpan(parent, span), () => fn(span));
}

/**
 * Runs `fn` (an HTTP call or a publish) in a child span of the current one;
 * `fn` sends the headers it is given (`traceparent`, empty when tracing is
 * off) and may annotate the span. The span ends when `fn` settles, in error
 * when it throws.
 */
export function withOutgoingSpan<T>(
  name: string,
  kind: 'client' | 'producer',
  attributes: Attributes,
  fn: (headers: Readonly<Record<string, string>>, span: Span | undefined) => Promise<T>,
): Promise<T> {
  return provider ? traceOutgoing(name, kind, attributes, fn) : fn(NO_HEADERS, undefined);
}

async function traceOutgoing<T>(name: string, kind: 'client' | 'producer', attributes: Attributes, fn: (headers: Readonly<Record<string, string>>, span: Span | undefined) => Promise<T>): Promise<T> {
  const span = tracer().startSpan(name, { kind: KINDS[kind], attributes });
  const headers: Record<string, string> = {};
  const ctx = trace.setSpan(context.active(), span);
  propagation.inject(ctx, headers);
  try {
    const result = await context.with(ctx, () => fn(headers, span));
    endSpan(span);
    return result;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
}

/** Ends a span of withIncomingSpan (or one a caller kept), marked as an error when `error` is given. */
export function endSpan(span: Span | undefined, error?: unknown): void {
  if (!span) return;
  if (error !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    if (error instanceof Error) span.recordException(error);
  }
  span.end();
}

/** Marks a span failed without an exception (a 5xx answer, a rejected message). */
export function markSpanFailed(span: Span | undefined, message: string): void {
  span?.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** Adds attributes to the span of the current unit of work, if any; `failure` marks it failed. */
export function annotateActiveSpan(attributes: Attributes, failure?: string): void {
  if (!provider) return;
  const span = trace.getActiveSpan();
  span?.setAttributes(attributes);
  if (failure !== undefined) markSpanFailed(span, failure);
}

/** The trace and span ids of the current span, for log lines; undefined when tracing is off or outside any span. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  if (!provider) return undefined;
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

export type { Attributes, Span };
