import type { ExtractResult } from '../llm-client';

/** What a series of LLM calls cost, for a node's `cost`/`tokens_used` or a job's outputs. */
export interface LlmUsageTotals {
  cost: number;
  tokens_used: number;
  /** The provider of the last call (`local` for the built-in engine). */
  provider: string | null;
  model: string | null;
  calls: number;
}

export class UsageTally {
  private totals: LlmUsageTotals = { cost: 0, tokens_used: 0, provider: null, model: null, calls: 0 };

  add(result: Pick<ExtractResult, 'cost' | 'usage' | 'provider' | 'model'>): void {
    this.totals = {
      cost: this.totals.cost + result.cost,
      tokens_used: this.totals.tokens_used + result.usage.total_tokens,
      provider: result.provider,
      model: result.model,
      calls: this.totals.calls + 1,
    };
  }

  merge(other: LlmUsageTotals): void {
    this.totals = {
      cost: this.totals.cost + other.cost,
      tokens_used: this.totals.tokens_used + other.tokens_used,
      provider: other.provider ?? this.totals.provider,
      model: other.model ?? this.totals.model,
      calls: this.totals.calls + other.calls,
    };
  }

  /** Costs rounded to 10 decimals, so that sums of float prices stay readable. */
  get value(): LlmUsageTotals {
    return { ...this.totals, cost: Math.round(this.totals.cost * 1e10) / 1e10 };
  }
}
