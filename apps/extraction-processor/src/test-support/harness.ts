import { randomUUID } from 'node:crypto';
import { JobMessageV1, type JobType, QUEUES, RELAY_QUEUES, RESULT_DELIVERED_TO_HEADER, ResultMessage } from '@docflow/contracts';
import { signJobUser } from '@docflow/internal-auth';
import { createContentClient, createLlmClient } from '@docflow/llm-client';
import { Broker } from '@docflow/messaging';
import { loadConfig, Metrics, silentLogger } from '@docflow/service-kit';
import { createTestVhost, TEST_SECRETS, type TestVhost } from '@docflow/testing';
import { ExtractionProcessorConfig } from '../config';
import { createExtractionMetrics } from '../metrics';
import { createExtractionProcessor, declareExtractionQueues, type ExtractionProcessor } from '../processor';

/** Result messages by job, with bounded waits. */
export class ResultsInbox {
  private readonly byJob = new Map<string, ResultMessage[]>();
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  put(msg: ResultMessage): void {
    this.byJob.set(msg.job_id, [...(this.byJob.get(msg.job_id) ?? []), msg]);
    this.waiters = this.waiters.filter((w) => !(w.check() && (w.resolve(), true)));
  }

  all(jobId: string): ResultMessage[] {
    return this.byJob.get(jobId) ?? [];
  }

  async final(jobId: string, ms = 20000): Promise<ResultMessage> {
    const find = () => this.all(jobId).find((m) => m.status === 'completed' || m.status === 'failed');
    const found = find();
    if (found) return found;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no final result for ${jobId} within ${ms} ms (got ${
                this.all(jobId)
                  .map((m) => m.status)
                  .join(', ') || 'nothing'
              })`,
            ),
          ),
        ms,
      );
      this.waiters.push({ check: () => find() !== undefined, resolve: () => (clearTimeout(timer), resolve()) });
    });
    return find() as ResultMessage;
  }
}

export interface RunningProcessor {
  processor: ExtractionProcessor;
  stop(): Promise<void>;
}

/**
 * A vhost of its own, a probe broker that publishes jobs to extraction_queue
 * and reads results_queue and public_api_results_queue, and processors built
 * as main.ts builds them.
 */
export class ExtractionHarness {
  readonly results = new ResultsInbox();
  /** What reached the public API's queue. */
  readonly publicResults = new ResultsInbox();
  /** The RESULT_DELIVERED_TO_HEADER of each results_queue message, in arrival order. */
  readonly deliveredTo: unknown[] = [];
  private readonly running: RunningProcessor[] = [];

  private constructor(
    readonly vhost: TestVhost,
    readonly probe: Broker,
  ) {}

  static async start(prefix: string): Promise<ExtractionHarness> {
    const vhost = await createTestVhost(prefix);
    const probe = Broker.connect({ url: vhost.url, logger: silentLogger, name: `${prefix}-probe`, reconnect: { initialMs: 50, maxMs: 500 } });
    await declareExtractionQueues(probe);
    await probe.ready(10000);
    const harness = new ExtractionHarness(vhost, probe);
    probe.consume(QUEUES.results, ResultMessage, async (msg, meta) => {
      harness.deliveredTo.push(meta.headers[RESULT_DELIVERED_TO_HEADER]);
      harness.results.put(msg);
    });
    probe.consume(RELAY_QUEUES.publicApiResults, ResultMessage, async (msg) => harness.publicResults.put(msg));
    return harness;
  }

  async startProcessor(env: Record<string, string>): Promise<RunningProcessor> {
    const config = loadConfig(ExtractionProcessorConfig, { NODE_ENV: 'test', ...TEST_SECRETS, AMQP_URL: this.vhost.url, DOCUMENT_TEXT_POLL_MS: '10', ...env });
    const broker = Broker.connect({ url: this.vhost.url, logger: silentLogger, name: `extraction-${randomUUID().slice(0, 8)}`, reconnect: { initialMs: 50, maxMs: 500 } });
    const llm = createLlmClient({ baseUrl: config.LLM_SERVICE_URL, serviceKey: config.SERVICE_KEY, timeoutMs: config.LLM_SERVICE_TIMEOUT_MS });
    const content = createContentClient({
      baseUrl: config.PUBLIC_API_INTERNAL_URL,
      serviceKey: config.SERVICE_KEY,
      maxChars: config.DOCUMENT_TEXT_MAX_CHARS,
      maxPages: config.DOCUMENT_MAX_PAGES,
      textWaitMs: config.DOCUMENT_TEXT_WAIT_MS,
      pollMs: config.DOCUMENT_TEXT_POLL_MS,
    });
    const processor = createExtractionProcessor({ config, broker, llm, content, metrics: createExtractionMetrics(new Metrics('extraction-processor')), logger: silentLogger });
    await declareExtractionQueues(broker);
    processor.start();
    await broker.ready(10000);
    let stopped = false;
    const instance: RunningProcessor = {
      processor,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await processor.stop(2000, 1000);
        await broker.close(3000);
        llm.close();
        content.close();
      },
    };
    this.running.push(instance);
    return instance;
  }

  /** Publishes a job as the router does. */
  async submit(jobId: string, jobType: Exclude<JobType, 'task_based_workflow'>, payload: Record<string, unknown>): Promise<void> {
    // Signed as the public API signs it (a processor of this harness runs with the test config's secret).
    const userId = payload['user_id'];
    const secret = TEST_SECRETS.INTERNAL_SERVICE_JWT_SECRET;
    const signed = typeof userId === 'number' && userId > 0 ? { ...payload, user_signature: signJobUser(secret, jobId, userId) } : payload;
    const msg: JobMessageV1 = { version: 1, job_id: jobId, job_type: jobType, payload: signed, submitted_at: new Date().toISOString() };
    await this.probe.publish(QUEUES.extraction, JobMessageV1, msg, { messageId: jobId });
  }

  async stop(): Promise<void> {
    for (const r of this.running) await r.stop();
    await this.probe.close(3000);
    await this.vhost.drop();
  }
}
