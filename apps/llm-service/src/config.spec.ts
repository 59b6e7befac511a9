import { ConfigError, loadConfig } from '@docflow/service-kit';
import { TEST_SECRETS } from '@docflow/testing';
import { LlmServiceConfig, providerSettings } from './config';

describe('LlmServiceConfig', () => {
  it('has the documented defaults and maps the three provider slots', () => {
    const config = loadConfig(LlmServiceConfig, { ...TEST_SECRETS, LLM_PROVIDER_B_URL: 'http://127.0.0.1:11434/v1', LLM_PROVIDER_C_KIND: 'anthropic' });
    expect(config).toMatchObject({ LLM_SERVICE_PORT: 8020, LLM_TIMEOUT_MS: 60000, LLM_MAX_RETRIES: 2, LLM_RETRY_BASE_MS: 250, DATA_SHIELD_URL: 'http://127.0.0.1:8030' });
    expect(providerSettings(config).map((s) => [s.modelType, s.kind, s.url ?? null])).toEqual([
      ['provider_a', 'openai', null],
      ['provider_b', 'openai', 'http://127.0.0.1:11434/v1'],
      ['provider_c', 'anthropic', null],
    ]);
  });

  it('parses LLM_PRICES as JSON', () => {
    const config = loadConfig(LlmServiceConfig, { ...TEST_SECRETS, LLM_PRICES: '{"my-model": {"input_per_1k": 0.1, "output_per_1k": 0.2}}' });
    expect(config.LLM_PRICES).toEqual({ 'my-model': { input_per_1k: 0.1, output_per_1k: 0.2 } });
  });

  it('names each bad variable', () => {
    let error: unknown;
    try {
      loadConfig(LlmServiceConfig, { ...TEST_SECRETS, LLM_PROVIDER_A_KIND: 'gemini', LLM_PRICES: '{"m": {"input_per_1k": -1}}', LLM_PROVIDER_B_URL: 'not a url' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('LLM_PROVIDER_A_KIND');
    expect(problems).toContain('LLM_PRICES');
    expect(problems).toContain('LLM_PROVIDER_B_URL');
  });
});
