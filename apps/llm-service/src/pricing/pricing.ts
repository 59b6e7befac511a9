/** USD per 1,000 tokens. */
export interface ModelPrice {
  input_per_1k: number;
  output_per_1k: number;
}

export type PriceTable = Record<string, ModelPrice>;

export const LOCAL_MODEL = 'docflow-local-1';

/**
 * List prices of common models (USD per 1k tokens). LLM_PRICES adds to and
 * overrides this table; a dated model name (`gpt-4o-mini-2024-07-18`) is
 * priced by its longest matching prefix.
 */
export const BUILT_IN_PRICES: PriceTable = {
  [LOCAL_MODEL]: { input_per_1k: 0, output_per_1k: 0 },
  'gpt-4o': { input_per_1k: 0.0025, output_per_1k: 0.01 },
  'gpt-4o-mini': { input_per_1k: 0.00015, output_per_1k: 0.0006 },
  'gpt-4.1': { input_per_1k: 0.002, output_per_1k: 0.008 },
  'gpt-4.1-mini': { input_per_1k: 0.0004, output_per_1k: 0.0016 },
  'gpt-4.1-nano': { input_per_1k: 0.0001, output_per_1k: 0.0004 },
  'gpt-4-turbo': { input_per_1k: 0.01, output_per_1k: 0.03 },
  'gpt-4': { input_per_1k: 0.03, output_per_1k: 0.06 },
  'gpt-3.5-turbo': { input_per_1k: 0.0005, output_per_1k: 0.0015 },
  'o3-mini': { input_per_1k: 0.0011, output_per_1k: 0.0044 },
  'text-embedding-3-small': { input_per_1k: 0.00002, output_per_1k: 0 },
  'text-embedding-3-large': { input_per_1k: 0.00013, output_per_1k: 0 },
  'text-embedding-ada-002': { input_per_1k: 0.0001, output_per_1k: 0 },
  'claude-3-haiku': { input_per_1k: 0.00025, output_per_1k: 0.00125 },
  'claude-3-5-haiku': { input_per_1k: 0.0008, output_per_1k: 0.004 },
  'claude-3-5-sonnet': { input_per_1k: 0.003, output_per_1k: 0.015 },
  'claude-3-7-sonnet': { input_per_1k: 0.003, output_per_1k: 0.015 },
  'claude-3-opus': { input_per_1k: 0.015, output_per_1k: 0.075 },
  'claude-sonnet-4': { input_per_1k: 0.003, output_per_1k: 0.015 },
  'claude-opus-4': { input_per_1k: 0.015, output_per_1k: 0.075 },
};

function isPrice(value: unknown): value is ModelPrice {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const p = value as Record<string, unknown>;
  return [p.input_per_1k, p.output_per_1k].every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0);
}

export function isPriceTable(value: unknown): value is PriceTable {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.values(value as Record<string, unknown>).every(isPrice);
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** Rounds to 6 decimals, half up; toPrecision absorbs float noise (4.4999999999 micro-dollars is 4.5). */
export function roundUsd(value: number): number {
  return Math.round(Number((value * 1e6).toPrecision(12))) / 1e6;
}

/** Prices models from the built-in table plus configured overrides. */
export class Pricing {
  private readonly table: PriceTable;

  constructor(overrides: PriceTable = {}) {
    this.table = { ...BUILT_IN_PRICES, ...overrides };
  }

  /** The price of a model, by exact name then longest prefix; undefined when unknown. */
  priceOf(model: string): ModelPrice | undefined {
    const exact = this.table[model];
    if (exact) return exact;
    let best: string | undefined;
    for (const name of Object.keys(this.table)) {
      if (model.startsWith(name) && (best === undefined || name.length > best.length)) best = name;
    }
    return best === undefined ? undefined : this.table[best];
  }

  /** USD, rounded to 6 decimals; the local engine and unknown models cost 0. */
  cost(provider: string, model: string, usage: TokenUsage): number {
    if (provider === 'local') return 0;
    const price = this.priceOf(model);
    if (!price) return 0;
    return roundUsd((usage.prompt_tokens / 1000) * price.input_per_1k + (usage.completion_tokens / 1000) * price.output_per_1k);
  }

  isKnown(model: string): boolean {
    return this.priceOf(model) !== undefined;
  }
}
