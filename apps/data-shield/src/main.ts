import 'reflect-metadata';
import { createShieldRuntime, shieldSelfTest, warmUpShield } from '@docflow/data-shield';
import { createLogger, Lifecycle, loadConfigOrExit, Metrics } from '@docflow/service-kit';
import { startTelemetry } from '@docflow/telemetry';
import { createRequestListener } from './app';
import { DataShieldConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit(DataShieldConfig, 'data-shield');
  const telemetry = startTelemetry({ service: config.OTEL_SERVICE_NAME ?? 'data-shield', endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const logger = createLogger({ service: 'data-shield', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();
  // The first hook runs last: spans of the shutdown itself are exported too.
  lifecycle.onShutdown('telemetry', () => telemetry.shutdown());
  if (config.DATA_SHIELD_SPACY_MODEL) logger.warn('DATA_SHIELD_SPACY_MODEL is ignored: named entities come from the offline tagger built into this service');
  if (config.DATA_SHIELD_AUDIT_DISABLED) logger.warn('DATA_SHIELD_AUDIT_DISABLED is set: no data_shield.tokenise audit rows are written');

  // Detectors load before the port opens: a service that answers is one that can shield.
  const runtime = createShieldRuntime({
    service: 'data-shield',
    logger,
    jwtSecret: config.INTERNAL_SERVICE_JWT_SECRET,
    dmsUrl: config.DMS_URL ?? config.PUBLIC_API_INTERNAL_URL,
    auditDisabled: config.DATA_SHIELD_AUDIT_DISABLED,
    scopeTtlSeconds: config.DATA_SHIELD_SCOPE_TTL_SECONDS,
    tenantCacheSeconds: config.DATA_SHIELD_TENANT_CACHE_SECONDS,
  });
  if (!shieldSelfTest(runtime.engine)) throw new Error('the detectors failed their self-test');
  warmUpShield(runtime.engine);
  lifecycle.onShutdown('audit events', () => runtime.close());

  const app = createRequestListener({
    metricsToken: config.METRICS_TOKEN,
    logger,
    metrics: new Metrics('data-shield'),
    auth: { serviceKey: config.SERVICE_KEY, jwtSecret: config.INTERNAL_SERVICE_JWT_SECRET },
    shield: runtime.service,
    health: [
      {
        name: 'detectors',
        check: async () => {
          if (!shieldSelfTest(runtime.engine)) throw new Error('the detectors failed their self-test');
        },
      },
    ],
  });
  await lifecycle.listen(app, config.DATA_SHIELD_PORT, config.BIND_HOST);
  logger.info('listening', { port: config.DATA_SHIELD_PORT, host: config.BIND_HOST, dms: config.DMS_URL ?? config.PUBLIC_API_INTERNAL_URL });
}

main().catch((err: unknown) => {
  process.stderr.write(`data-shield failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
