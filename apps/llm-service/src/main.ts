import 'reflect-metadata';
import { createShieldRuntime, shieldSelfTest, warmUpShield } from '@docflow/data-shield';
import { createLogger, type HealthCheck, httpHealthCheck, Lifecycle, loadConfigOrExit, type Logger, Metrics } from '@docflow/service-kit';
import { startTelemetry } from '@docflow/telemetry';
import { createApp } from './app';
import { FileResolver } from './files/file-inputs';
import { LlmServiceConfig, providerSettings } from './config';
import { type DataShield, HttpDataShield } from './data-shield/data-shield.client';
import { InProcessDataShield } from './data-shield/in-process.data-shield';
import { Pricing } from './pricing/pricing';
import { systemRetryClock } from './providers/provider-http';
import { buildProviderRegistry } from './providers/registry';

/**
 * Data Shield as configured (spec 4.17 rule 9): the gateway over HTTP (its
 * health is ours), the engine in process, or off with a warning.
 */
function buildDataShield(config: LlmServiceConfig, logger: Logger, lifecycle: Lifecycle): { dataShield: DataShield; health: HealthCheck[] } {
  const http = () =>
    new HttpDataShield({
      baseUrl: config.DATA_SHIELD_URL,
      serviceKey: config.SERVICE_KEY,
    });
  if (config.DATA_SHIELD_DISABLED) {
    logger.warn('DATA_SHIELD_DISABLED is set: calls that ask for Data Shield are sent to providers unshielded, and calls a policy requires it for are refused');
    return { dataShield: http(), health: [] };
  }
  if (config.DATA_SHIELD_MODE === 'in_process') {
    const runtime = createShieldRuntime({
      service: 'llm-service',
      logger: logger.child({ component: 'data-shield' }),
      jwtSecret: config.INTERNAL_SERVICE_JWT_SECRET,
      dmsUrl: config.DMS_URL ?? config.PUBLIC_API_INTERNAL_URL,
      auditDisabled: config.DATA_SHIELD_AUDIT_DISABLED,
      scopeTtlSeconds: config.DATA_SHIELD_SCOPE_TTL_SECONDS,
      tenantCacheSeconds: config.DATA_SHIELD_TENANT_CACHE_SECONDS,
    });
    if (!shieldSelfTest(runtime.engine)) throw new Error('Data Shield detectors failed their self-test');
    warmUpShield(runtime.engine);
    lifecycle.onShutdown('data shield audit events', () => runtime.close());
    logger.info('Data Shield runs in process (DATA_SHIELD_MODE=in_process)');
    const selfTest: HealthCheck = {
      name: 'data-shield',
      check: async () => {
        if (!shieldSelfTest(runtime.engine)) throw new Error('the detectors failed their self-test');
      },
    };
    return { dataShield: new InProcessDataShield(runtime.service), health: [selfTest] };
  }
  return { dataShield: http(), health: [httpHealthCheck('data-shield', config.DATA_SHIELD_URL)] };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit(LlmServiceConfig, 'llm-service');
  const telemetry = startTelemetry({ service: config.OTEL_SERVICE_NAME ?? 'llm-service', endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const logger = createLogger({ service: 'llm-service', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();
  // The first hook runs last: spans of the shutdown itself are exported too.
  lifecycle.onShutdown('telemetry', () => telemetry.shutdown());

  const providers = buildProviderRegistry(providerSettings(config), {
    timeoutMs: config.LLM_TIMEOUT_MS,
    retry: { maxRetries: config.LLM_MAX_RETRIES, baseMs: config.LLM_RETRY_BASE_MS, maxWaitMs: config.LLM_MAX_RETRY_WAIT_MS },
    clock: systemRetryClock,
  });
  const shield = buildDataShield(config, logger, lifecycle);
  const app = createApp({
    metricsToken: config.METRICS_TOKEN,
    logger,
    metrics: new Metrics('llm-service'),
    auth: { serviceKey: config.SERVICE_KEY, jwtSecret: config.INTERNAL_SERVICE_JWT_SECRET },
    providers,
    dataShield: shield.dataShield,
    shieldingDisabled: config.DATA_SHIELD_DISABLED,
    pricing: new Pricing(config.LLM_PRICES ?? {}),
    health: shield.health,
    files: new FileResolver({ publicBaseUrl: config.PUBLIC_BASE_URL, allowedHosts: config.REST_API_ALLOWED_HOSTS, maxBytes: config.LLM_FILE_MAX_BYTES, maxChars: config.LLM_FILE_MAX_CHARS }),
  });
  await lifecycle.listen(app, config.LLM_SERVICE_PORT, config.BIND_HOST);
  logger.info('listening', { port: config.LLM_SERVICE_PORT, host: config.BIND_HOST, providers: providers.describe() });
}

main().catch((err: unknown) => {
  process.stderr.write(`llm-service failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
