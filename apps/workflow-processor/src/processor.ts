import { JobMessageV1, QUEUES } from '@docflow/contracts';
import { createAiClients } from '@docflow/llm-client';
import type { Mailer } from '@docflow/mail';
import { JobWorker, type Broker } from '@docflow/messaging';
import { createOutboundClient, type OutboundClient } from '@docflow/outbound-http';
import type { Logger } from '@docflow/service-kit';
import type { CheckpointStore } from './checkpoints/checkpoint-store';
import type { ExecutionControl } from './engine/workflow-run';
import { mailSendersOf, type ProcessorLimitSettings, runLimitsOf, type WorkflowProcessorConfig, workflowLimitsOf } from './config';
import type { AiExecutorDeps } from './executors/ai/ai-deps';
import { buildExecutors } from './executors/build-executors';
import type { CloudDriveFetchDeps } from './executors/cloud-drive/cloud-drive-fetch.executor';
import { PublicApiCredentials } from './executors/rest-api/node-credentials';
import { WorkflowJobHandler } from './jobs/workflow-job.handler';
import type { WorkflowMetrics } from './metrics';
import type { ParkStore } from './parking/park-store';
import { startWaker, type Waker } from './parking/waker';

export type ProcessorSettings = Pick<
  WorkflowProcessorConfig,
  | 'WORKFLOW_PREFETCH'
  | 'REST_API_ALLOWED_HOSTS'
  | 'REST_API_DEFAULT_TIMEOUT_SECONDS'
  | 'REST_API_MAX_RESPONSE_BYTES'
  | 'PROGRESS_INTERVAL_MS'
  | 'SERVICE_KEY'
  | 'LLM_SERVICE_URL'
  | 'LLM_SERVICE_TIMEOUT_MS'
  | 'PUBLIC_API_INTERNAL_URL'
  | 'INTERNAL_SERVICE_JWT_SECRET'
  | 'PUBLIC_BASE_URL'
  | 'DOCUMENT_TEXT_MAX_CHARS'
  | 'DOCUMENT_MAX_PAGES'
  | 'DOCUMENT_TEXT_WAIT_MS'
  | 'DOCUMENT_TEXT_POLL_MS'
  | 'MAIL_FROM'
  | 'MAIL_FROM_ALLOWED'
  | 'WAIT_PARK_AFTER_MS'
  | 'WAIT_HOLD_MAX_MS'
  | 'WAKE_HEARTBEAT_SECONDS'
  | 'WAKE_POLL_INTERVAL_MS'
> &
  ProcessorLimitSettings;

export interface WorkflowProcessorDeps {
  config: ProcessorSettings;
  broker: Pick<Broker, 'consume' | 'publish'>;
  checkpoints: CheckpointStore;
  /**
   * Parked runs and their wake-ups (main.ts: the table workflow_wakeups).
   * Without it nothing parks: waits and retry backoffs hold their job.
   */
  parks?: ParkStore;
  /** Tells a run its execution was cancelled (main.ts reads the shared database); without it nothing is cancelled. */
  control?: ExecutionControl;
  mailer: Pick<Mailer, 'send'>;
  metrics: WorkflowMetrics;
  logger: Logger;
  /** Defaults to the SSRF-guarded client built from REST_API_ALLOWED_HOSTS. */
  outbound?: OutboundClient;
  /** Defaults to LLM service and public-API content clients built from the config (closed by `stop`). */
  ai?: AiExecutorDeps;
  /** cloud_drive_fetch_task's drive and document import (main.ts builds them from CLOUD_DRIVE_*); without them the task fails as not_available. */
  drive?: CloudDriveFetchDeps;
}

/** The AI executors' clients, from the config. */
export function aiDepsFromConfig(config: ProcessorSettings, logger: Logger): AiExecutorDeps {
  return { ...createAiClients(config, logger), documentOrigins: [config.PUBLIC_BASE_URL, config.PUBLIC_API_INTERNAL_URL] };
}

export interface WorkflowProcessor {
  readonly handler: WorkflowJobHandler;
  /** Subscribes to workflow_queue (the queues must have been asserted). */
  start(): void;
  /**
   * Stops consuming, lets runs in progress finish for up to `drainMs`, then
   * closes the consumer channel (unacknowledged jobs go back to the queue)
   * and stops what is still running without publishing a result.
   */
  stop(drainMs: number, settleMs?: number): Promise<void>;
}

/** The workflow processor: executor registry (checked complete at construction), job handler and consumer. */
export function createWorkflowProcessor(deps: WorkflowProcessorDeps): WorkflowProcessor {
  const { config } = deps;
  const outbound =
    deps.outbound ??
    createOutboundClient({
      allowedHosts: config.REST_API_ALLOWED_HOSTS,
      maxResponseBytes: config.REST_API_MAX_RESPONSE_BYTES,
      defaultTimeoutMs: config.REST_API_DEFAULT_TIMEOUT_SECONDS * 1000,
    });
  const ai = deps.ai ?? aiDepsFromConfig(config, deps.logger);
  const limits = workflowLimitsOf(config);
  const credentials = new PublicApiCredentials({ baseUrl: config.PUBLIC_API_INTERNAL_URL, jwtSecret: config.INTERNAL_SERVICE_JWT_SECRET });
  const executors = buildExecutors({
    outbound,
    mailer: deps.mailer,
    restDefaultTimeoutSeconds: config.REST_API_DEFAULT_TIMEOUT_SECONDS,
    mailSenders: mailSendersOf(config),
    limits,
    ai,
    rag: { baseUrl: config.PUBLIC_API_INTERNAL_URL, serviceKey: config.SERVICE_KEY },
    drive: deps.drive,
    credentials,
    ...(deps.parks ? { parking: { parkAfterMs: config.WAIT_PARK_AFTER_MS, holdMaxMs: config.WAIT_HOLD_MAX_MS } } : {}),
  });
  const handler = new WorkflowJobHandler({
    broker: deps.broker,
    engine: {
      executors,
      checkpoints: deps.checkpoints,
      ...(deps.parks ? { parks: deps.parks, parking: { minMs: config.WAIT_PARK_AFTER_MS, heartbeatMs: config.WAKE_HEARTBEAT_SECONDS * 1000 } } : {}),
      ...(deps.control ? { control: deps.control } : {}),
      metrics: deps.metrics,
      limits: runLimitsOf(config),
    },
    ...(deps.parks ? { parks: deps.parks } : {}),
    metrics: deps.metrics,
    logger: deps.logger,
    progressIntervalMs: config.PROGRESS_INTERVAL_MS,
    jobUserSecret: config.INTERNAL_SERVICE_JWT_SECRET,
    limits,
  });
  const worker = new JobWorker({
    broker: deps.broker,
    queue: QUEUES.workflow,
    message: JobMessageV1,
    handle: handler.handle,
    prefetch: config.WORKFLOW_PREFETCH,
    // Runs resumed by one frame of result confirms are acked together: one settle for RabbitMQ's quorum log instead of one each.
    coalesceAcks: true,
    jobs: handler.jobs,
    shutdownReason: WorkflowJobHandler.shutdownReason,
  });
  let waker: Waker | undefined;
  return {
    handler,
    start: () => {
      worker.start();
      // Every replica wakes parked runs; SKIP LOCKED shares the due ones.
      if (deps.parks) waker = startWaker({ store: deps.parks, broker: deps.broker, logger: deps.logger.child({ component: 'waker' }), intervalMs: config.WAKE_POLL_INTERVAL_MS });
    },
    async stop(drainMs, settleMs = 2000) {
      await waker?.stop();
      await worker.stop(drainMs, settleMs);
      credentials.close();
      if (!deps.ai) {
        ai.llm.close();
        ai.content.close();
      }
    },
  };
}
