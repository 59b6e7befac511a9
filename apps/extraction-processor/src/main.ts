import 'reflect-metadata';
import { JobMessageV1, QUEUES, ResultMessage } from '@docflow/contracts';
import { Broker } from '@docflow/messaging';
import { createLogger, Lifecycle, loadConfigOrExit, Metrics } from '@docflow/service-kit';
import { createApp } from './app';
import { ExtractionProcessorConfig } from './config';
import { buildJobHandlers } from './jobs/job-handlers';

async function main(): Promise<void> {
  const config = loadConfigOrExit(ExtractionProcessorConfig, 'extraction-processor');
  const logger = createLogger({ service: 'extraction-processor', level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  lifecycle.installSignalHandlers();

  const metrics = new Metrics('extraction-processor');
  const jobsTotal = metrics.counter('extraction_jobs_total', 'Extraction jobs handled, by type', ['job_type']);

  const broker = Broker.connect({ url: config.AMQP_URL, logger, name: 'extraction-processor' });
  lifecycle.onShutdown('broker', () => broker.close(Math.max(1000, Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2))));
  await broker.assertWorkQueue(QUEUES.extraction);
  await broker.assertWorkQueue(QUEUES.results);

  const handlers = buildJobHandlers((result) => broker.publish(QUEUES.results, ResultMessage, result));
  broker.consume(
    QUEUES.extraction,
    JobMessageV1,
    async (job, meta) => {
      await handlers.dispatch(job.job_type, job, meta);
      jobsTotal.inc({ job_type: job.job_type });
    },
    { prefetch: config.EXTRACTION_PREFETCH },
  );

  const app = createApp({ logger, metrics, health: [broker.healthCheck()] });
  await lifecycle.listen(app, config.EXTRACTION_PROCESSOR_PORT, config.HOST);
  logger.info('listening', { port: config.EXTRACTION_PROCESSOR_PORT });
}

main().catch((err: unknown) => {
  process.stderr.write(`extraction-processor failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
