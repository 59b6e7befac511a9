import 'reflect-metadata';
import { aiClientsHealthChecks, createAiClients } from '@docflow/llm-client';
import { Broker } from '@docflow/messaging';
import { createLogger, Lifecycle, loadConfigOrExit, Metrics } from '@docflow/service-kit';
import { startTelemetry } from '@docflow/telemetry';
import { createApp } from './app';
import { ExtractionProcessorConfig } from './config';
import { createExtractionMetrics } from './metrics';
import { createExtractionProcessor, declareExtractionQueues } from './processor';

async function main(): Promise<void> {
  const config = loadConfigOrExit(ExtractionProcessorConfig, 'extraction-processor');
  const telemetry = startTelemetry({ service: config.OTEL_SERVICE_NAME ?? 'extraction-processor', endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const logger = createLogger({ service: 'extraction-processor', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();
  // The first hook runs last: spans of the shutdown itself are exported too.
  lifecycle.onShutdown('telemetry', () => telemetry.shutdown());
  const budget = config.SHUTDOWN_TIMEOUT_MS;

  // Shutdown hooks run in reverse: HTTP first, then the consumer (jobs finish or are requeued), then the broker and the clients.
  const { llm, content } = createAiClients(config, logger);
  lifecycle.onShutdown('http clients', () => {
    llm.close();
    content.close();
  });

  const broker = Broker.connect({ url: config.AMQP_URL, logger, name: 'extraction-processor' });
  lifecycle.onShutdown('broker', () => broker.close(Math.max(1000, Math.floor(budget * 0.2))));

  const metrics = new Metrics('extraction-processor');
  const processor = createExtractionProcessor({ config, broker, llm, content, metrics: createExtractionMetrics(metrics), logger });
  await declareExtractionQueues(broker);
  processor.start();
  // Most of the budget lets jobs finish; what still runs then is requeued.
  lifecycle.onShutdown('extraction consumer', () => processor.stop(Math.floor(budget * 0.6), Math.min(2000, Math.floor(budget * 0.1))));

  const app = createApp({ logger, metrics, metricsToken: config.METRICS_TOKEN, health: [broker.healthCheck(), ...aiClientsHealthChecks(config)] });
  await lifecycle.listen(app, config.EXTRACTION_PROCESSOR_PORT, config.BIND_HOST);
  logger.info('listening', { port: config.EXTRACTION_PROCESSOR_PORT, host: config.BIND_HOST, prefetch: config.EXTRACTION_PREFETCH });
}

main().catch((err: unknown) => {
  process.stderr.write(`extraction-processor failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
