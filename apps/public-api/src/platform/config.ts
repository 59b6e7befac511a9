import { ArrayNotEmpty, ArrayUnique, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { BaseConfig, EnvBoolean, EnvInt, EnvList, Secret } from '@docflow/service-kit';

/** What one public API process runs: `api` serves HTTP, `workers` runs the background work (see workers/). */
export const PUBLIC_API_ROLES = ['api', 'workers'] as const;
export type PublicApiRole = (typeof PUBLIC_API_ROLES)[number];

/** The public API's settings, read once at boot from the environment (runtime-contract.md). */
export class PublicApiConfig extends BaseConfig {
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  PUBLIC_API_PORT = 1337;

  /**
   * Processes serving the API on one port (node:cluster). 1: this process
   * serves it; more: a primary forks that many workers and replaces any that
   * dies. The API is single-threaded per process, so this is how it uses
   * more than one core of a machine.
   */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(64)
  PUBLIC_API_WORKERS = 1;

  /**
   * Comma-separated roles of this process: `api` (HTTP), `workers` (results
   * consumer, execution reaper, RAG indexing, text extraction and OCR,
   * scheduler tick, housekeeping), or both, so that OCR and PDF parsing can
   * run apart from HTTP serving.
   */
  @EnvList()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(PUBLIC_API_ROLES, { each: true, message: `PUBLIC_API_ROLES must list roles among ${PUBLIC_API_ROLES.join(', ')}` })
  PUBLIC_API_ROLES: PublicApiRole[] = ['api', 'workers'];

  /** The public API is the platform's door: it listens on every interface unless told otherwise (internal services use BIND_HOST). */
  @IsString()
  @MinLength(1)
  HOST = '0.0.0.0';

  /** /api/metrics is on the public port: in production it is never open (issue #13). */
  static override readonly metricsOnPublicPort = true;

  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
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

  @EnvInt()
  @IsInt()
  @Min(60)
  @Max(30 * 86400)
  JWT_EXPIRES_IN_SECONDS = 86400;

  /** e.g. `smtp://127.0.0.1:2525`; unset: mails become .eml files under OUTBOX_DIR. */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsString()
  @MinLength(3)
  MAIL_FROM = 'Docflow <no-reply@docflow.local>';

  @IsString()
  @MinLength(1)
  OUTBOX_DIR = './var/outbox';

  /**
   * The built web console (`npm run build` writes dist/apps/console), served
   * at `/`. Unset: the folder `console` beside the public API's bundle; a
   * folder without index.html serves no console.
   */
  @IsOptional()
  @IsString()
  @MinLength(1)
  CONSOLE_DIR?: string;

  /** Creates the demo accounts at start; never honoured with NODE_ENV=production. */
  @EnvBoolean()
  @IsBoolean()
  SEED_DEMO_USERS = false;

  /** Limit for JSON request bodies, e.g. `1mb`, `512kb`. */
  @Matches(/^\d+(b|kb|mb)$/i, { message: 'BODY_LIMIT must look like 1mb, 512kb or 1048576b' })
  BODY_LIMIT = '1mb';

  // Documents and storage (issue 4).
  /** `local` (files under STORAGE_DIR) or `s3` (an S3-compatible bucket, S3_*). */
  @IsIn(['local', 's3'])
  STORAGE_DRIVER: 'local' | 's3' = 'local';

  @IsString()
  @MinLength(1)
  STORAGE_DIR = './var/storage';

  @ValidateIf((c: PublicApiConfig) => c.STORAGE_DRIVER === 's3')
  @IsString()
  @MinLength(3)
  S3_BUCKET?: string;

  @IsOptional()
  @IsString()
  S3_REGION?: string;

  /** For S3-compatible stores (MinIO, Ceph), e.g. `http://127.0.0.1:9000`. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  S3_ENDPOINT?: string;

  @EnvBoolean()
  @IsBoolean()
  S3_FORCE_PATH_STYLE = false;

  /** Static credentials; both unset: the AWS SDK's default provider chain. */
  @ValidateIf((c: PublicApiConfig) => c.S3_SECRET_ACCESS_KEY !== undefined)
  @IsString()
  @MinLength(1)
  S3_ACCESS_KEY_ID?: string;

  @ValidateIf((c: PublicApiConfig) => c.S3_ACCESS_KEY_ID !== undefined)
  @IsString()
  @MinLength(1)
  S3_SECRET_ACCESS_KEY?: string;

  /** Every key is stored under this prefix in the bucket, e.g. `documents`. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/, { message: 'S3_PREFIX must be path segments of letters, digits, dot, dash and underscore' })
  S3_PREFIX?: string;

  /** Largest file POST /documents/upload accepts; larger ones are refused with 413. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1024)
  UPLOAD_MAX_FILE_SIZE_MB = 50;

  /** Where uploads are spooled before they are checked and stored; default <os tmpdir>/docflow-uploads. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  UPLOAD_TMP_DIR?: string;

  /** Storage each user may fill (uploads beyond it are refused; a warning from 80 %). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1024 * 1024 * 1024)
  STORAGE_QUOTA_MB = 1024;

  /** Workflow executions each user may start in a UTC month (issue 18); 0: no limit. An administrator may set another per user. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  EXECUTION_QUOTA_MONTHLY = 0;

  /** LLM cost each user may spend in a UTC month, in US cents (issue 18); 0: no limit. Past it, new executions and LLM calls are refused (429). */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  LLM_COST_QUOTA_MONTHLY_CENTS = 0;

  /**
   * Key of the credential store (AES-256-GCM): 64 hex characters. To change it, move the old value to
   * CREDENTIALS_MASTER_KEY_PREVIOUS and run `npm run credentials:rotate-key`.
   * Outside production a fixed development value is used when unset.
   */
  @Secret()
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'CREDENTIALS_MASTER_KEY must be 64 hex characters' })
  CREDENTIALS_MASTER_KEY!: string;

  /**
   * The key CREDENTIALS_MASTER_KEY replaces, during a rotation: values sealed under it still open until
   * `npm run credentials:rotate-key` has re-sealed every one under the current key; then remove it.
   */
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'CREDENTIALS_MASTER_KEY_PREVIOUS must be 64 hex characters' })
  CREDENTIALS_MASTER_KEY_PREVIOUS?: string;

  /** How often the scheduler looks for due workflow schedules (each replica; a due tick is taken by one). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(3600)
  SCHEDULER_INTERVAL_SECONDS = 15;

  /** Account deletion grace (spec 8: 7 days): a requested deletion runs this long after, cancellable meanwhile (tests shorten it). */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(90 * 86400)
  ACCOUNT_DELETION_GRACE_SECONDS = 7 * 86400;

  /** Export bundle retention (spec 8: 7 days): a data export's archive is deleted this long after it is ready. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(365)
  DATA_EXPORT_RETENTION_DAYS = 7;

  /** How often the workers role builds requested data exports and runs account deletions whose grace ended. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(3600)
  GDPR_INTERVAL_SECONDS = 10;

  /** Audit rows are deleted this many days after they were written (spec 8: 400). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(36500)
  AUDIT_LOG_RETENTION_DAYS = 400;

  /** Data Shield audit rows (data_shield.tokenise) are deleted this many days after they were written (spec 8: 30). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(36500)
  DATA_SHIELD_AUDIT_RETENTION_DAYS = 30;

  /** Data Shield audit events sent by the gateway are accepted and dropped (spec 4.17 rule 9). */
  @EnvBoolean()
  @IsBoolean()
  DATA_SHIELD_AUDIT_DISABLED = false;

  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(7 * 86400)
  SIGNED_URL_TTL_SECONDS = 3600;

  /** Lifetime of the signed download URLs a chatbot hands its visitors (minutes, not the hour of SIGNED_URL_TTL_SECONDS). */
  @EnvInt()
  @IsInt()
  @Min(30)
  @Max(3600)
  CHATBOT_SIGNED_URL_TTL_SECONDS = 300;

  /** Cost cap of one agent public-chat request: model calls (the agent's max_iterations applies too). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(50)
  AGENT_CHAT_MAX_MODEL_CALLS = 12;

  /** Cost cap of one agent public-chat request: tool runs, all model replies together (a tool may itself call a model). */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(500)
  AGENT_CHAT_MAX_TOOL_CALLS = 20;

  /** `host:port` entries agents' MCP servers may be reached on although private or loopback (as for REST nodes). */
  @EnvList()
  @IsArray()
  @IsString({ each: true })
  REST_API_ALLOWED_HOSTS: string[] = [];

  /** How long an MCP server's tool list is reused before it is listed again. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(86400)
  MCP_TOOLS_TTL_SECONDS = 60;

  /** Connecting to an MCP server and listing its tools, per server and turn. */
  @EnvInt()
  @IsInt()
  @Min(100)
  @Max(120000)
  MCP_CONNECT_TIMEOUT_MS = 5000;

  /** One MCP tool call. */
  @EnvInt()
  @IsInt()
  @Min(100)
  @Max(600000)
  MCP_CALL_TIMEOUT_MS = 15000;

  /** Characters of an MCP tool's result the model gets; the rest is cut. */
  @EnvInt()
  @IsInt()
  @Min(100)
  @Max(1000000)
  MCP_RESULT_MAX_CHARS = 8000;

  /** Agent public-chat requests a minute with one agent key (429 with Retry-After beyond). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100_000)
  AGENT_CHAT_RATE_PER_KEY = 60;

  /** Agent public-chat requests a minute in one conversation session. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100_000)
  AGENT_CHAT_RATE_PER_SESSION = 20;

  /** HMAC key of signed download URLs; unset: derived from JWT_SECRET (HKDF-SHA256). */
  @IsOptional()
  @IsString()
  @MinLength(16)
  SIGNED_URL_SECRET?: string;

  @EnvInt()
  @IsInt()
  @Min(5)
  @Max(3600)
  DOCX_CONVERSION_TIMEOUT_SECONDS = 120;

  /** Text extractions (PDF parsing, OCR) run at once by this process. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(64)
  TEXT_EXTRACTION_CONCURRENCY = 2;

  /** How often pending or stalled text extractions are picked up again. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(3600)
  TEXT_EXTRACTION_SWEEP_SECONDS = 30;

  /** RabbitMQ, for the results the router relays (public_api_results_queue). */
  @IsString()
  @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  /** `{router_url}`: where workflow jobs are submitted. */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  ROUTER_URL = 'http://127.0.0.1:8010';

  /** Sent to the router as `X-API-Key`. */
  @Secret()
  ROUTER_API_KEY!: string;

  /** A running execution with no progress reported for this long is failed by the reaper. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(7 * 86400)
  EXECUTION_LEASE_SECONDS = 900;

  /**
   * Finished executions (with their steps) and settled event logs older than
   * this are deleted by housekeeping, in batches (issue #15 item 5); the
   * router and the workflow processor prune their tables with the same variable.
   */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(36_500)
  EXECUTION_RETENTION_DAYS = 30;

  /** How often the reaper looks for expired leases. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(3600)
  REAPER_INTERVAL_SECONDS = 30;

  /** Executions one user may have `running` when starting one by hand, by a schedule, a retry or an event (issue #16 item 5). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  MAX_RUNNING_EXECUTIONS_PER_USER = 10;

  /** Triggers a minute per webhook (spec 8: 100), counted across processes; raised by the webhook benchmark. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  WEBHOOK_TRIGGERS_PER_MINUTE = 100;

  /** The same cap for webhook-triggered starts (spec 8: 10 per user); raised by the webhook benchmark. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER = 10;

  // Prompts and classification jobs (issue 5).
  /** `{llm_url}`: the LLM service (generate-rtio), called with X-Service-Key = SERVICE_KEY. */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  LLM_SERVICE_URL = 'http://127.0.0.1:8020';

  /** How long POST /prompts/generate-rtio may take before it answers 408. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(600)
  RTIO_TIMEOUT_SECONDS = 30;

  // RAG (issue 6).
  /** Indexing jobs one replica runs at once (prefetch of rag_index_queue). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(64)
  RAG_INDEX_CONCURRENCY = 2;

  /** How long an indexing job waits for its document's text extraction before it fails. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(86400)
  RAG_TEXT_WAIT_SECONDS = 300;

  /** Embed chunks and queries through the LLM service (POST /api/v1/embeddings); false: full-text ranking only. */
  @EnvBoolean()
  @IsBoolean()
  RAG_EMBEDDINGS = true;

  /** Chunks per embeddings call. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(2048)
  RAG_EMBEDDING_BATCH = 64;

  /** Which configured provider answers RAG questions and embeds (provider_a, provider_b, provider_c). */
  @IsIn(['provider_a', 'provider_b', 'provider_c'])
  RAG_MODEL_TYPE: 'provider_a' | 'provider_b' | 'provider_c' = 'provider_a';

  /** How long the answer's LLM call may take before the answer falls back to quoting the sources. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(600)
  RAG_ANSWER_TIMEOUT_SECONDS = 60;

  // Abuse controls (issue 13): counted in PostgreSQL, shared by every process and replica.
  /** Failed logins one account may have per LOGIN_THROTTLE_WINDOW_SECONDS; then 429 until the window ends. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(10000)
  LOGIN_MAX_FAILURES_PER_ACCOUNT = 5;

  /** Failed logins one client address may have per LOGIN_THROTTLE_WINDOW_SECONDS (whatever the accounts); then 429. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100000)
  LOGIN_MAX_FAILURES_PER_ADDRESS = 20;

  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(86400)
  LOGIN_THROTTLE_WINDOW_SECONDS = 900;

  /** Worker threads that run bcrypt (logins, new users), off the event loop. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(64)
  PASSWORD_HASH_THREADS = 2;

  /** Password checks that may wait for a thread; one more is 503 with Retry-After. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100000)
  PASSWORD_HASH_MAX_QUEUE = 200;

  /**
   * Express's `trust proxy`, which decides the client address the login
   * throttle counts: `false` (the peer's address), `true`, a hop count, or
   * addresses/subnets of the proxies (comma-separated, e.g. `loopback,10.0.0.0/8`).
   */
  @IsString()
  @Matches(/^[\w.:/,\s-]+$/, { message: 'TRUST_PROXY must be false, true, a hop count or a list of addresses' })
  TRUST_PROXY = 'false';
}
