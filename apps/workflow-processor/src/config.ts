import { IsArray, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import { AiClientsConfig } from '@docflow/llm-client';
import { EnvInt, EnvList, Secret } from '@docflow/service-kit';

const URL_OPTIONS = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

/** The workflow processor's settings, validated once at boot (runtime contract). */
/** The LLM and document settings of AI tasks come from AiClientsConfig. */
export class WorkflowProcessorConfig extends AiClientsConfig {
  @EnvInt() @IsInt() @Min(1) @Max(65535)
  WORKFLOW_PROCESSOR_PORT = 8040;

  @IsString() @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  @IsString() @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/docflow';

  @EnvInt() @IsInt() @Min(1) @Max(100)
  DB_POOL_SIZE = 10;

  /** Workflow jobs one replica runs at once (unacknowledged messages it holds). */
  @EnvInt() @IsInt() @Min(1) @Max(1000)
  WORKFLOW_PREFETCH = 16;

  /** `host:port` entries exempt from the outbound address check (on-premises targets, loopback test servers). */
  @EnvList() @IsArray() @IsString({ each: true })
  REST_API_ALLOWED_HOSTS: string[] = [];

  /** rest_api_task timeout when the node sets none. */
  @EnvInt() @IsInt() @Min(1) @Max(3600)
  REST_API_DEFAULT_TIMEOUT_SECONDS = 30;

  /** Response bodies past this size fail the node. */
  @EnvInt() @IsInt() @Min(1024) @Max(1024 * 1024 * 1024)
  REST_API_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

  /** e.g. `smtp://127.0.0.1:2525`; unset: mails become .eml files under OUTBOX_DIR. */
  @IsOptional() @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsString() @MinLength(3)
  MAIL_FROM = 'Docflow <no-reply@docflow.local>';

  @IsString() @MinLength(1)
  OUTBOX_DIR = './var/outbox';

  /** At most one `processing` result per execution per interval. */
  @EnvInt() @IsInt() @Min(10) @Max(60000)
  PROGRESS_INTERVAL_MS = 250;

  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;

  /** Where documents' file_url point; AI tasks read such URLs as Docflow documents (and fetch no other URL). */
  @IsUrl(URL_OPTIONS)
  PUBLIC_BASE_URL = 'http://127.0.0.1:1337';
}
