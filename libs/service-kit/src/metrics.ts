import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import client from 'prom-client';
import { errorMessage } from './values';

/** IPC messages between a cluster worker that serves /metrics and the primary that aggregates. */
interface MetricsRequest {
  docflowMetrics: 'request';
  id: string;
}
interface MetricsResponse {
  docflowMetrics: 'response';
  id: string;
  text?: string;
  error?: string;
}

/** One Prometheus registry per service process, with default process metrics. */
export class Metrics {
  readonly registry = new client.Registry();
  readonly httpDuration: client.Histogram<'method' | 'route' | 'status_code'>;

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
    client.collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): client.Counter<L> {
    return new client.Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
  }

  /**
   * `aggregator`: how a cluster's primary combines the workers' values (prom-client's default for a
   * gauge is the sum; a value every worker reads from one shared source, such as a queue depth, wants `max`).
   */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = [], aggregator?: 'sum' | 'max' | 'min' | 'first' | 'average'): client.Gauge<L> {
    return new client.Gauge({ name, help, labelNames: [...labelNames], registers: [this.registry], ...(aggregator ? { aggregator } : {}) });
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[] = [], buckets?: number[]): client.Histogram<L> {
    return new client.Histogram({ name, help, labelNames: [...labelNames], buckets, registers: [this.registry] });
  }

  private aggregated = false;

  /**
   * In a cluster worker: /metrics answers for the whole cluster. Counters and
   * histograms (process CPU, request durations...) are summed over the
   * workers by the primary (see serveClusterMetrics), whichever worker the
   * scrape reaches.
   */
  aggregateAcrossCluster(): void {
    if (!cluster.isWorker) return;
    // Constructing one installs prom-client's listener that answers the primary's collection requests.
    new client.AggregatorRegistry();
    client.AggregatorRegistry.setRegistries([this.registry]);
    this.aggregated = true;
  }

  async render(): Promise<string> {
    if (!this.aggregated) return this.registry.metrics();
    return requestClusterMetrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

const pending = new Map<string, { resolve: (text: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();
let listening = false;

function requestClusterMetrics(timeoutMs = 5000): Promise<string> {
  if (!listening) {
    listening = true;
    process.on('message', (m: unknown) => {
      const msg = m as Partial<MetricsResponse> | null;
      if (!msg || msg.docflowMetrics !== 'response' || typeof msg.id !== 'string') return;
      const waiter = pending.get(msg.id);
      if (!waiter) return;
      pending.delete(msg.id);
      clearTimeout(waiter.timer);
      if (typeof msg.text === 'string') waiter.resolve(msg.text);
      else waiter.reject(new Error(msg.error ?? 'no metrics from the primary'));
    });
  }
  return new Promise((resolve, reject) => {
    const id = randomUUID();
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('the primary did not answer the metrics request in time'));
    }, timeoutMs);
    pending.set(id, { resolve, reject, timer });
    process.send?.({ docflowMetrics: 'request', id } satisfies MetricsRequest);
  });
}

/**
 * In the primary of a cluster: answers the workers' requests for /metrics
 * with the metrics of every worker, aggregated by prom-client (sums for
 * counters and histograms).
 */
export function serveClusterMetrics(): void {
  const aggregator = new client.AggregatorRegistry();
  cluster.on('message', (worker, m: unknown) => {
    const msg = m as Partial<MetricsRequest> | null;
    if (!msg || msg.docflowMetrics !== 'request' || typeof msg.id !== 'string') return;
    const id = msg.id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ docflowMetrics: 'response', id, text } satisfies MetricsResponse),
      (err: unknown) => worker.send({ docflowMetrics: 'response', id, error: errorMessage(err) } satisfies MetricsResponse),
    );
  });
}
