import 'reflect-metadata';
import { createLogger, httpHealthCheck, Lifecycle, loadConfigOrExit, Metrics } from '@docflow/service-kit';
import { createApp } from './app';
import { LlmServiceConfig, providerSettings } from './config';
import { HttpDataShield } from './data-shield/data-shield.client';
import { Pricing } from './pricing/pricing';
import { systemRetryClock } from './providers/provider-http';
import { buildProviderRegistry } from './providers/registry';

async function main(): Promise<void> {
  const config = loadConfigOrExit(LlmServiceConfig, 'llm-service');
  const logger = createLogger({ service: 'llm-service', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();

  const providers = buildProviderRegistry(providerSettings(config), {
    timeoutMs: config.LLM_TIMEOUT_MS,
    retry: { maxRetries: config.LLM_MAX_RETRIES, baseMs: config.LLM_RETRY_BASE_MS, maxWaitMs: config.LLM_MAX_RETRY_WAIT_MS },
    clock: systemRetryClock,
  });
  const app = createApp({
    logger,
    metrics: new Metrics('llm-service'),
    auth: { serviceKey: config.SERVICE_KEY, jwtSecret: config.INTERNAL_SERVICE_JWT_SECRET },
    providers,
    dataShield: new HttpDataShield({ baseUrl: config.DATA_SHIELD_URL, serviceKey: config.SERVICE_KEY }),
    pricing: new Pricing(config.LLM_PRICES ?? {}),
    health: [httpHealthCheck('data-shield', config.DATA_SHIELD_URL)],
  });
  await lifecycle.listen(app, config.LLM_SERVICE_PORT, config.HOST);
  logger.info('listening', { port: config.LLM_SERVICE_PORT, providers: providers.describe() });
}

main().catch((err: unknown) => {
  process.stderr.write(`llm-service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
