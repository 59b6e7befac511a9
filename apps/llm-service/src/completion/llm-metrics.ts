import type { Counter, Histogram } from 'prom-client';
import { Metrics } from '@docflow/service-kit';
import type { TokenUsage } from '../pricing/pricing';

export type LlmEndpoint = 'extract' | 'chat' | 'embeddings';
export type LlmOutcome = 'success' | 'provider_error' | 'unavailable' | 'data_shield_unavailable' | 'error';

export interface LlmCallRecord {
  provider: string;
  model: string;
  endpoint: LlmEndpoint;
  outcome: LlmOutcome;
  seconds: number;
  usage?: TokenUsage;
  cost?: number;
}

/** The LLM service's own Prometheus series. */
export class LlmMetrics {
  private readonly requests: Counter<'provider' | 'model' | 'endpoint' | 'outcome'>;
  private readonly tokens: Counter<'provider' | 'model' | 'direction'>;
  private readonly costUsd: Counter<'provider' | 'model'>;
  private readonly duration: Histogram<'provider' | 'model'>;

  constructor(metrics: Metrics) {
    this.requests = metrics.counter('llm_requests_total', 'LLM calls by provider, model, endpoint and outcome', ['provider', 'model', 'endpoint', 'outcome']);
    this.tokens = metrics.counter('llm_tokens_total', 'Tokens sent (input) and received (output)', ['provider', 'model', 'direction']);
    this.costUsd = metrics.counter('llm_cost_usd_total', 'Cost of LLM calls in USD, from the price table', ['provider', 'model']);
    this.duration = metrics.histogram('llm_request_duration_seconds', 'Duration of LLM calls including retries', ['provider', 'model'], [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120]);
  }

  record(r: LlmCallRecord): void {
    this.requests.inc({ provider: r.provider, model: r.model, endpoint: r.endpoint, outcome: r.outcome });
    this.duration.observe({ provider: r.provider, model: r.model }, r.seconds);
    if (r.usage) {
      if (r.usage.prompt_tokens) this.tokens.inc({ provider: r.provider, model: r.model, direction: 'input' }, r.usage.prompt_tokens);
      if (r.usage.completion_tokens) this.tokens.inc({ provider: r.provider, model: r.model, direction: 'output' }, r.usage.completion_tokens);
    }
    if (r.cost) this.costUsd.inc({ provider: r.provider, model: r.model }, r.cost);
  }
}
