import { randomUUID } from 'node:crypto';
import { deadLetterQueueOf, JobMessageV1, QUEUES, ResultMessage } from '@docflow/contracts';
import { signJobUser } from '@docflow/internal-auth';
import { createMailer, type Mailer } from '@docflow/mail';
import { Broker } from '@docflow/messaging';
import { closeDatabase, openDatabase } from '@docflow/persistence';
import { loadConfig, Metrics, silentLogger } from '@docflow/service-kit';
import { createTestDatabase, createTestVhost, TEST_SECRETS, type TestDatabase, type TestVhost } from '@docflow/testing';
import { NodeRunsRepository } from '../checkpoints/node-runs.repository';
import type { CheckpointStore } from '../checkpoints/checkpoint-store';
import { WorkflowProcessorConfig } from '../config';
import { workflowProcessorDatabaseOptions } from '../data-source';
import { createWorkflowMetrics } from '../metrics';
import { createWorkflowProcessor, type WorkflowProcessor } from '../processor';
import { declareWorkflowQueues } from '../topology';
import type { ExecutionControl } from '../engine/workflow-run';
import type { ParkStore } from '../parking/park-store';
import { WakeupsRepository } from '../parking/wakeups.repository';

type DataSource = Awaited<ReturnType<typeof openDatabase>>;

/** Every result message of every job, in arrival order, with bounded waits. */
export class ResultsInbox {
  private readonly byJob = new Map<string, ResultMessage[]>();
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  put(msg: ResultMessage): void {
    const list = this.byJob.get(msg.job_id) ?? [];
    list.push(msg);
    this.byJob.set(msg.job_id, list);
    this.waiters = this.waiters.filter((w) => !(w.check() && (w.resolve(), true)));
  }

  all(jobId: string): ResultMessage[] {
    return this.byJob.get(jobId) ?? [];
  }

  /** The first message of `jobId` with one of `statuses`. */
  async next(jobId: string, statuses: ResultMessage['status'][] = ['completed', 'failed', 'awaiting_user_input'], ms = 15000): Promise<ResultMessage> {
    const find = () => this.all(jobId).find((m) => statuses.includes(m.status));
    const found = find();
    if (found) return found;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no ${statuses.join('/')} result for ${jobId} within ${ms} ms (got ${
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

export interface ProcessorInstance {
  processor: WorkflowProcessor;
  broker: Broker;
  checkpoints: CheckpointStore;
  /** Graceful stop: drain for `drainMs`, then requeue what is still running. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * A test database and vhost of their own, a probe broker that submits jobs
 * to workflow_queue and reads results_queue, and processors built exactly
 * as main.ts builds them.
 */
export class ProcessorHarness {
  readonly results = new ResultsInbox();
  private readonly instances: ProcessorInstance[] = [];
  private mailers: Mailer[] = [];

  private constructor(
    readonly db: TestDatabase,
    readonly vhost: TestVhost,
    readonly ds: DataSource,
    readonly probe: Broker,
  ) {}

  static async start(prefix: string): Promise<ProcessorHarness> {
    const [db, vhost] = await Promise.all([createTestDatabase(prefix), createTestVhost(prefix)]);
    const ds = await openDatabase(workflowProcessorDatabaseOptions(db.url, silentLogger));
    const probe = Broker.connect({ url: vhost.url, logger: silentLogger, name: `${prefix}-probe`, reconnect: { initialMs: 50, maxMs: 500 } });
    await declareWorkflowQueues(probe);
    await probe.ready(10000);
    const harness = new ProcessorHarness(db, vhost, ds, probe);
    probe.consume(QUEUES.results, ResultMessage, async (msg) => harness.results.put(msg));
    return harness;
  }

  config(env: Record<string, string> = {}): WorkflowProcessorConfig {
    // Tests poll waits every 50 ms to stay quick; the production floor is a second (README, Limits).
    return loadConfig(WorkflowProcessorConfig, {
      NODE_ENV: 'test',
      ...TEST_SECRETS,
      PROGRESS_INTERVAL_MS: '20',
      WAIT_MIN_POLL_INTERVAL_MS: '10',
      OUTBOX_DIR: `/tmp/wfp-outbox-${this.db.name}`,
      ...env,
    });
  }

  /**
   * A processor as main.ts builds it: real checkpoints and park store
   * (`parks: null` for none), cancellation read through `control` when given.
   */
  async startProcessor(env: Record<string, string> = {}, checkpoints?: CheckpointStore, extra: { parks?: ParkStore | null; control?: ExecutionControl } = {}): Promise<ProcessorInstance> {
    const config = this.config(env);
    const broker = Broker.connect({ url: this.vhost.url, logger: silentLogger, name: `processor-${randomUUID().slice(0, 8)}`, reconnect: { initialMs: 50, maxMs: 500 } });
    const mailer = createMailer({
      smtpUrl: config.SMTP_URL,
      outboxDir: config.OUTBOX_DIR,
      from: config.MAIL_FROM,
      logger: silentLogger,
      timeouts: { connectionMs: 3000, greetingMs: 3000, socketMs: 5000 },
    });
    this.mailers.push(mailer);
    const store = checkpoints ?? new NodeRunsRepository(this.ds);
    const parks = extra.parks === null ? undefined : (extra.parks ?? new WakeupsRepository(this.ds));
    const processor = createWorkflowProcessor({
      config,
      broker,
      checkpoints: store,
      ...(parks ? { parks } : {}),
      ...(extra.control ? { control: extra.control } : {}),
      mailer,
      metrics: createWorkflowMetrics(new Metrics('workflow-processor')),
      logger: silentLogger,
    });
    await declareWorkflowQueues(broker);
    processor.start();
    await broker.ready(10000);
    let stopped = false;
    const instance: ProcessorInstance = {
      processor,
      broker,
      checkpoints: store,
      stop: async (drainMs = 2000) => {
        if (stopped) return;
        stopped = true;
        await processor.stop(drainMs, 1000);
        await broker.close(3000);
      },
    };
    this.instances.push(instance);
    return instance;
  }

  /** Publishes a task_based_workflow job, as the router does; a positive user_id is signed as the public API signs it. */
  async submit(jobId: string, payload: Record<string, unknown>): Promise<void> {
    const userId = payload['user_id'];
    const signed =
      typeof userId === 'number' && userId > 0 && !('user_signature' in payload) ? { ...payload, user_signature: signJobUser(this.config().INTERNAL_SERVICE_JWT_SECRET, jobId, userId) } : payload;
    const msg: JobMessageV1 = { version: 1, job_id: jobId, job_type: 'task_based_workflow', payload: signed, submitted_at: new Date().toISOString() };
    await this.probe.publish(QUEUES.workflow, JobMessageV1, msg, { messageId: jobId });
  }

  async deadLettered(): Promise<number> {
    return (await this.probe.checkQueue(deadLetterQueueOf(QUEUES.workflow))).messageCount;
  }

  async stop(): Promise<void> {
    for (const i of this.instances) await i.stop(500);
    for (const m of this.mailers) m.close();
    await this.probe.close(3000);
    await closeDatabase(this.ds);
    await Promise.all([this.db.drop(), this.vhost.drop()]);
  }
}
