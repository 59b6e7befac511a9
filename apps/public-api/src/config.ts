import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import { BaseConfig, EnvBoolean, EnvInt, Secret } from '@docflow/service-kit';

/** The public API's settings, read once at boot from the environment (runtime-contract.md). */
export class PublicApiConfig extends BaseConfig {
  @EnvInt() @IsInt() @Min(1) @Max(65535)
  PUBLIC_API_PORT = 1337;

  @IsString() @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/docflow';

  /** Used to build absolute URLs (file_url, signed URLs, the OpenAPI server). */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  PUBLIC_BASE_URL = 'http://127.0.0.1:1337';

  @Secret()
  JWT_SECRET!: string;

  @Secret()
  SERVICE_KEY!: string;

  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;

  @EnvInt() @IsInt() @Min(60) @Max(30 * 86400)
  JWT_EXPIRES_IN_SECONDS = 86400;

  /** e.g. `smtp://127.0.0.1:2525`; unset: mails become .eml files under OUTBOX_DIR. */
  @IsOptional() @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsString() @MinLength(3)
  MAIL_FROM = 'Docflow <no-reply@docflow.local>';

  @IsString() @MinLength(1)
  OUTBOX_DIR = './var/outbox';

  /** Creates the demo accounts at start; never honoured with NODE_ENV=production. */
  @EnvBoolean() @IsBoolean()
  SEED_DEMO_USERS = false;

  /** Limit for JSON request bodies, e.g. `1mb`, `512kb`. */
  @Matches(/^\d+(b|kb|mb)$/i, { message: 'BODY_LIMIT must look like 1mb, 512kb or 1048576b' })
  BODY_LIMIT = '1mb';

  /** RabbitMQ, for the results the router relays (public_api_results_queue). */
  @IsString() @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  /** `{router_url}`: where workflow jobs are submitted. */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  ROUTER_URL = 'http://127.0.0.1:8010';

  /** Sent to the router as `X-API-Key`. */
  @Secret()
  ROUTER_API_KEY!: string;

  /** A running execution with no progress reported for this long is failed by the reaper. */
  @EnvInt() @IsInt() @Min(1) @Max(7 * 86400)
  EXECUTION_LEASE_SECONDS = 900;

  /** How often the reaper looks for expired leases. */
  @EnvInt() @IsInt() @Min(1) @Max(3600)
  REAPER_INTERVAL_SECONDS = 30;

  /** Executions one user may have `running` at once (spec 8). */
  @EnvInt() @IsInt() @Min(1) @Max(1000)
  MAX_RUNNING_EXECUTIONS_PER_USER = 10;
}
