import 'reflect-metadata';
import cluster from 'node:cluster';
import { CloudDriveConfig } from '@docflow/cloud-drive';
import { createLogger, Lifecycle, loadConfigOrExit } from '@docflow/service-kit';
import { startTelemetry } from '@docflow/telemetry';
import { runPrimary } from './cluster-primary';
import { PublicApiConfig } from './platform';
import { startPublicApi } from './server';

const SERVICE = 'public-api';

async function main(): Promise<void> {
  const config = loadConfigOrExit(PublicApiConfig, SERVICE);
  const cloudDrive = loadConfigOrExit(CloudDriveConfig, SERVICE);
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  if (config.PUBLIC_API_WORKERS > 1 && cluster.isPrimary) {
    runPrimary({ workers: config.PUBLIC_API_WORKERS, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS, logger });
    return;
  }
  // Each process that serves starts its own tracing (the cluster primary serves nothing).
  const telemetry = startTelemetry({ service: config.OTEL_SERVICE_NAME ?? SERVICE, endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();
  // The first hook runs last: spans of the shutdown itself are exported too.
  lifecycle.onShutdown('telemetry', () => telemetry.shutdown());
  // Builds the dependencies, starts the roles PUBLIC_API_ROLES names (HTTP and/or the background workers).
  await startPublicApi(config, logger, lifecycle, cloudDrive);
}

main().catch((err: unknown) => {
  process.stderr.write(`${SERVICE} failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
