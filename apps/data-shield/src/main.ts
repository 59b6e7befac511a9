import 'reflect-metadata';
import { createLogger, Lifecycle, loadConfigOrExit, Metrics } from '@docflow/service-kit';
import { createApp } from './app';
import { DataShieldConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfigOrExit(DataShieldConfig, 'data-shield');
  const logger = createLogger({ service: 'data-shield', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();
  const app = createApp({ logger, metrics: new Metrics('data-shield'), health: [] });
  await lifecycle.listen(app, config.DATA_SHIELD_PORT, config.HOST);
  logger.info('listening', { port: config.DATA_SHIELD_PORT });
}

main().catch((err: unknown) => {
  process.stderr.write(`data-shield failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
