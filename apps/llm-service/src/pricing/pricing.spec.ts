import { Pricing, roundUsd } from './pricing';

describe('Pricing', () => {
  const pricing = new Pricing({ 'my-model': { input_per_1k: 0.002, output_per_1k: 0.004 }, 'gpt-4o': { input_per_1k: 0.003, output_per_1k: 0.012 } });

  it('multiplies tokens by the per-1k prices and rounds to 6 decimals', () => {
    expect(pricing.cost('openai', 'my-model', { prompt_tokens: 1500, completion_tokens: 250 })).toBe(0.004);
    expect(pricing.cost('openai', 'gpt-4o-mini', { prompt_tokens: 10, completion_tokens: 5 })).toBe(0.000005);
    expect(pricing.cost('anthropic', 'claude-3-5-sonnet-20241022', { prompt_tokens: 2000, completion_tokens: 1000 })).toBe(0.021);
  });

  it('prices dated names by their longest prefix and lets LLM_PRICES override the table', () => {
    expect(pricing.priceOf('gpt-4o-mini-2024-07-18')).toEqual({ input_per_1k: 0.00015, output_per_1k: 0.0006 });
    expect(pricing.priceOf('gpt-4o-2024-08-06')).toEqual({ input_per_1k: 0.003, output_per_1k: 0.012 });
  });

  it('charges nothing for the local engine and for unknown models', () => {
    expect(pricing.cost('local', 'gpt-4o', { prompt_tokens: 1000, completion_tokens: 1000 })).toBe(0);
    expect(pricing.cost('openai', 'llama3.1:8b', { prompt_tokens: 1000, completion_tokens: 1000 })).toBe(0);
    expect(pricing.isKnown('llama3.1:8b')).toBe(false);
  });

  it('rounds half up despite float noise', () => {
    expect(roundUsd(0.0000045)).toBe(0.000005);
    expect(roundUsd(0.1234564)).toBe(0.123456);
  });
});
