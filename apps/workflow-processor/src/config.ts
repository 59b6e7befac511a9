import { IsArray, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import { AiClientsConfig } from '@docflow/llm-client';
import { EnvInt, EnvList, Secret } from '@docflow/service-kit';
import type { WorkflowLimits } from '@docflow/workflow';
import type { RunLimits } from './engine/workflow-run';
import { addressOf } from './executors/email-sender';

const URL_OPTIONS = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

/** The workflow processor's settings, validated once at boot (runtime contract). */
/** The LLM and document settings of AI tasks come from AiClientsConfig. */
export class WorkflowProcessorConfig extends AiClientsConfig {
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  WORKFLOW_PROCESSOR_PORT = 8040;

  @IsString()
  @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/docflow';

  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100)
  DB_POOL_SIZE = 10;

  /** Workflow jobs one replica runs at once (unacknowledged messages it holds). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  WORKFLOW_PREFETCH = 16;

  /** `host:port` entries exempt from the outbound address check (on-premises targets, loopback test servers). */
  @EnvList()
  @IsArray()
  @IsString({ each: true })
  REST_API_ALLOWED_HOSTS: string[] = [];

  /** rest_api_task timeout when the node sets none. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(3600)
  REST_API_DEFAULT_TIMEOUT_SECONDS = 30;

  /** Response bodies past this size (after decompression) fail the node: rest_api_task and wait_task polls. */
  @EnvInt()
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024 * 1024)
  REST_API_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

  // ---- Limits (README, Limits; issue #13). Validation and the run both enforce them. ----

  /** Nodes in one workflow definition. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(10_000)
  WORKFLOW_MAX_NODES = 200;

  /** Outgoing edges of one node. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  WORKFLOW_MAX_FAN_OUT = 20;

  /** Nodes one run executes at once; runnable nodes past it wait their turn. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(256)
  WORKFLOW_MAX_PARALLEL_NODES = 8;

  /** Serialised size of all node outputs of one run; the node that would pass it fails. */
  @EnvInt()
  @IsInt()
  @Min(64 * 1024)
  @Max(1024 * 1024 * 1024)
  WORKFLOW_MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

  /** email_send_task nodes in one definition. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1000)
  WORKFLOW_MAX_EMAIL_NODES = 10;

  /** to + cc + bcc of one e-mail. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  MAIL_MAX_RECIPIENTS = 50;

  /** Shortest wait_task poll_interval, in milliseconds. */
  @EnvInt()
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  WAIT_MIN_POLL_INTERVAL_MS = 1000;

  /** Longest wait_task timeout, in seconds (a long wait parks between polls: WAIT_PARK_AFTER_MS). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 3600)
  WAIT_MAX_TIMEOUT_SECONDS = 3600;

  /**
   * A wait_task gap between polls, or a retry backoff, this long or longer
   * parks the run: its job is acked and re-published when due (issue #15).
   */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  WAIT_PARK_AFTER_MS = 10_000;

  /** One delivery polls a wait_task in process at most this long, then parks it whatever its poll interval. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_200_000)
  WAIT_HOLD_MAX_MS = 60_000;

  /** A parked run is woken at least this often to report progress: keep it under the public API's EXECUTION_LEASE_SECONDS. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(86_400)
  WAKE_HEARTBEAT_SECONDS = 300;

  /** Checkpoints and wake-up rows older than this are deleted (hourly, in batches); the public API and the router prune theirs with the same variable. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(36_500)
  EXECUTION_RETENTION_DAYS = 30;

  /** How often each replica looks for parked runs that are due. */
  @EnvInt()
  @IsInt()
  @Min(10)
  @Max(60_000)
  WAKE_POLL_INTERVAL_MS = 1000;

  /** Longest rest_api_task timeout, in seconds; it also caps REST_API_DEFAULT_TIMEOUT_SECONDS. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(3600)
  REST_API_MAX_TIMEOUT_SECONDS = 300;

  /** e.g. `smtp://127.0.0.1:2525`; unset: mails become .eml files under OUTBOX_DIR. */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsString()
  @MinLength(3)
  MAIL_FROM = 'Docflow <no-reply@docflow.local>';

  /** Senders an email_send_task may name in `from`: addresses and `@domain` entries. Empty: the MAIL_FROM address only. */
  @EnvList()
  @IsArray()
  @Matches(/^[^@\s]*@[^@\s]+$/, { each: true, message: 'MAIL_FROM_ALLOWED entries must be addresses or @domain' })
  MAIL_FROM_ALLOWED: string[] = [];

  @IsString()
  @MinLength(1)
  OUTBOX_DIR = './var/outbox';

  /** At most one `processing` result per execution per interval. */
  @EnvInt()
  @IsInt()
  @Min(10)
  @Max(60000)
  PROGRESS_INTERVAL_MS = 250;

  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;

  /** Where documents' file_url point; AI tasks read such URLs as Docflow documents (and fetch no other URL). */
  @IsUrl(URL_OPTIONS)
  PUBLIC_BASE_URL = 'http://127.0.0.1:1337';
}

/** Who an email_send_task may name as its sender: MAIL_FROM_ALLOWED, or else the MAIL_FROM address. */
export function mailSendersOf(config: Pick<WorkflowProcessorConfig, 'MAIL_FROM' | 'MAIL_FROM_ALLOWED'>): string[] {
  if (config.MAIL_FROM_ALLOWED.length > 0) return [...config.MAIL_FROM_ALLOWED];
  const address = addressOf(config.MAIL_FROM);
  return address ? [address] : [];
}

/** The limits validation checks a definition against, from the configuration. */
export function workflowLimitsOf(config: ProcessorLimitSettings): WorkflowLimits {
  return {
    maxNodes: config.WORKFLOW_MAX_NODES,
    maxFanOut: config.WORKFLOW_MAX_FAN_OUT,
    maxEmailNodes: config.WORKFLOW_MAX_EMAIL_NODES,
    maxRecipientsPerEmail: config.MAIL_MAX_RECIPIENTS,
    minPollIntervalSeconds: config.WAIT_MIN_POLL_INTERVAL_MS / 1000,
    maxWaitTimeoutSeconds: config.WAIT_MAX_TIMEOUT_SECONDS,
    maxRestTimeoutSeconds: config.REST_API_MAX_TIMEOUT_SECONDS,
  };
}

/** The limits the engine holds one run to, from the configuration. */
export function runLimitsOf(config: ProcessorLimitSettings): RunLimits {
  return { maxParallelNodes: config.WORKFLOW_MAX_PARALLEL_NODES, maxOutputBytes: config.WORKFLOW_MAX_OUTPUT_BYTES };
}

export type ProcessorLimitSettings = Pick<
  WorkflowProcessorConfig,
  | 'WORKFLOW_MAX_NODES'
  | 'WORKFLOW_MAX_FAN_OUT'
  | 'WORKFLOW_MAX_PARALLEL_NODES'
  | 'WORKFLOW_MAX_OUTPUT_BYTES'
  | 'WORKFLOW_MAX_EMAIL_NODES'
  | 'MAIL_MAX_RECIPIENTS'
  | 'WAIT_MIN_POLL_INTERVAL_MS'
  | 'WAIT_MAX_TIMEOUT_SECONDS'
  | 'REST_API_MAX_TIMEOUT_SECONDS'
>;
