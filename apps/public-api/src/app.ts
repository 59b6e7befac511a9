import express from 'express';
import type { Mailer } from '@docflow/mail';
import type { StorageDriver } from '@docflow/storage';
import type { RequestListener } from 'node:http';
import { createHttpApp, HealthCheck, Logger, Metrics, requestLane } from '@docflow/service-kit';
import { agentsUserData, createAgentsModule } from './agents';
import { createDocumentsModule, type DocumentsModule, type DocumentsModuleDeps, documentsUserData, signedApiUrl, verifySignedRequest } from './documents';
import {
  type AuditLog,
  type AuthGuards,
  configurePasswordHashing,
  createCredentialsService,
  createGdprModule,
  createIdentityModule,
  type GdprModule,
  type PrincipalCache,
  type QuotasService,
} from './identity';
import { type ApiFeature, bindFeature, consoleStatic, openApiFeature, OpenApiRegistry, type PublicApiConfig, type PublicApiDatabase, RateLimits, RouterClient } from './platform';
import { createRagModule, type RagBroker, type RagModule, ragUserData } from './rag';
import { createShieldModule, shieldUserData } from './shield';
import {
  createWorkflowsModule,
  DOCUMENT_IMPORT_ROUTE,
  executionLaneRoutes,
  workflowsUserData,
  type EventBusDriveSettings,
  type EventBusModule,
  type ExecutionServices,
  type SchedulesService,
} from './workflows';

export interface PublicApiDeps {
  config: PublicApiConfig;
  logger: Logger;
  metrics: Metrics;
  database: PublicApiDatabase;
  mailer: Mailer;
  /** Checks behind /_health and /api/_health (main passes the database check). */
  health: HealthCheck[];
  /**
   * Extra features mounted after the built-in ones (tests mount probe routes
   * here, behind the auth guards). A production feature belongs to a module,
   * whose factory gives it what it needs, so that the OpenAPI coverage test
   * sees its routes.
   */
  features?: ApiFeature<{ auth: AuthGuards }>[];
  /** Where documents are stored; default: the driver STORAGE_DRIVER names. */
  storage?: StorageDriver;
  /** RabbitMQ, for RAG indexing jobs (rag_index_queue); without it, enabling RAG answers 503. */
  broker?: RagBroker;
  /** The audit log's writer (main's, closed before the database); default: one of this app's own. */
  audit?: AuditLog;
  /** Quotas (main's, shared with executionServices); default: this app's own. */
  quotas?: QuotasService;
  /** The built web console served at `/` (main passes CONSOLE_DIR or dist/apps/console); none in most tests. */
  consoleDir?: string;
  /** Execution use cases (main's, shared with the results consumer and the reaper); default: this app's own. */
  executionServices?: ExecutionServices;
  /** Where new documents' text is extracted (PUBLIC_API_ROLES); default `here`, in this process. */
  textExtraction?: DocumentsModuleDeps['textExtraction'];
  /** CLOUD_DRIVE_* of the runtime contract (main loads CloudDriveConfig); default: its defaults. */
  cloudDrive?: EventBusDriveSettings;
}

export interface PublicApi {
  app: express.Express;
  /** What the server runs: the request lane for the hot execution routes, `app` for everything else. */
  listener: RequestListener;
  auth: AuthGuards;
  openapi: OpenApiRegistry;
  /** Documents and collections: main starts and stops their background text extraction. */
  documents: DocumentsModule;
  /** RAG: main starts and stops its indexing worker. */
  rag: RagModule;
  /** Authenticated principals; main turns the cache on while it listens for auth changes. */
  principals: PrincipalCache;
  /** The audit log's writer (tests flush it before reading the table). */
  audit: AuditLog;
  /** The shared rate-limit store: main purges ended windows. */
  limits: RateLimits;
  /** Workflow schedules: main runs their tick every SCHEDULER_INTERVAL_SECONDS (tests call tick). */
  schedules: SchedulesService;
  /** Accepted webhook triggers whose start is still pending: the workers role sweeps them (tests call it). */
  sweepPendingWebhookStarts(): Promise<number>;
  /** The event bus: main starts its queue consumer, settler and tick (tests call tick and settleNow). */
  eventBus: EventBusModule;
  /** Execution use cases; main feeds their watch from its LISTEN (tests do the same). */
  executions: ExecutionServices;
  /** Data exports and account deletions: the workers role runs their rounds (tests call tick). */
  gdpr: GdprModule;
}

/**
 * Builds the public API (all of it under /api) over the given dependencies;
 * tests use it with a database of their own. Each module gets from its
 * factory only the collaborators it uses; they depend on one another in
 * this order: platform ← identity ← documents ← rag ← workflows, agents, shield.
 */
export function buildPublicApi(deps: PublicApiDeps): PublicApi {
  const { config, logger, metrics, database, mailer } = deps;
  const openapi = new OpenApiRegistry();
  const limits = new RateLimits(database);
  configurePasswordHashing({ threads: config.PASSWORD_HASH_THREADS, maxQueue: config.PASSWORD_HASH_MAX_QUEUE });
  const identity = createIdentityModule({ config, database, logger, metrics, mailer, openapi, limits, audit: deps.audit, quotas: deps.quotas });
  const { auth, audit, users, quotas } = identity;
  const documents = createDocumentsModule({ config, database, logger, metrics, openapi, auth, audit, quotas, storage: deps.storage, textExtraction: deps.textExtraction });
  const rag = createRagModule({ config, database, logger, metrics, broker: deps.broker, textExtraction: documents.textExtraction });
  const workflows = createWorkflowsModule({
    config,
    database,
    logger,
    metrics,
    openapi,
    limits,
    auth,
    audit,
    users,
    quotas,
    documents,
    rag,
    executions: deps.executionServices,
    broker: deps.broker,
    cloudDrive: deps.cloudDrive,
  });
  const credentials = createCredentialsService({ config, database, audit });
  const agents = createAgentsModule({
    config,
    database,
    logger,
    openapi,
    limits,
    mailer,
    auth,
    documents,
    rag,
    activities: workflows.activities,
    quotas,
    credentialFields: (ownerId, id) => credentials.fieldsFor(ownerId, id),
  });
  const shield = createShieldModule({ config, database, openapi, auth, audit });
  // Data export and account deletion (issue #18) over each module's part; the account itself is identity's, last.
  const router = new RouterClient({ baseUrl: config.ROUTER_URL, apiKey: config.ROUTER_API_KEY, logger: logger.child({ component: 'gdpr' }) });
  const purgeRouterJobs = (jobIds: readonly string[]) => router.purgeJobs(jobIds);
  const gdpr = createGdprModule({
    config,
    database,
    logger,
    openapi,
    auth,
    audit,
    storage: documents.storage,
    signedUrls: { sign: (path, options) => signedApiUrl(config, path, options), verify: (url) => verifySignedRequest(config, url) },
    holders: [
      workflowsUserData({ database, logger, eventBus: workflows.eventBus, purgeRouterJobs }),
      agentsUserData({ database }),
      shieldUserData({ database }),
      ragUserData({ database }),
      documentsUserData({ database, storage: documents.storage, purgeRouterJobs }),
    ],
  });

  // Mounting order: earlier routes win where paths overlap. The webhook trigger, whose path no other route matches,
  // goes first: express walks every route mounted before a request's own (docs/decisions.md, "Throughput: the webhook tail").
  const features = [
    workflows.features.webhookTrigger,
    identity.features.auth,
    identity.features.users,
    identity.features.quotas,
    gdpr.feature,
    workflows.features.activities,
    workflows.features.tools,
    workflows.features.analytics,
    workflows.features.executionList,
    workflows.features.executions,
    documents.features.prompts,
    documents.features.classificationJobs,
    documents.features.internalText,
    identity.features.audit,
    identity.features.credentials,
    shield.features.dataShield,
    documents.features.documents,
    documents.features.collections,
    bindFeature(rag.feature, { config, openapi, auth, quotas }),
    workflows.features.webhooks,
    agents.features.chatbots,
    agents.features.agents,
    agents.features.squads,
    workflows.features.schedules,
    workflows.features.eventBus,
    ...(deps.features ?? []).map((feature) => bindFeature(feature, { auth })),
    bindFeature(openApiFeature, { config, openapi }),
  ];

  const app = createHttpApp(
    {
      logger,
      metrics,
      health: deps.health,
      errorStyle: 'public',
      bodyLimit: config.BODY_LIMIT,
      aliasPrefixes: ['/api'],
      metricsToken: config.METRICS_TOKEN,
      rawBodyPaths: [`/api${DOCUMENT_IMPORT_ROUTE}`],
    },
    (root) => {
      const api = express.Router();
      for (const feature of features) feature.mount(api);
      root.use('/api', api);
      const consoleFiles = deps.consoleDir === undefined ? undefined : consoleStatic(deps.consoleDir);
      if (consoleFiles) root.use(consoleFiles);
      else if (deps.consoleDir !== undefined) logger.warn('the web console is not built: `/` serves nothing (run npm run build)', { consoleDir: deps.consoleDir });
    },
  );
  app.set('trust proxy', trustProxy(config.TRUST_PROXY));
  // The three requests of every execution a client runs skip express's per-request work (docs/decisions.md, "A request lane for the execution routes"),
  // and so does a webhook trigger the fast path takes (docs/decisions.md, "Webhook triggers: GC, allocations and the lane").
  const listener = requestLane({
    routes: [...workflows.webhookLaneRoutes(), ...executionLaneRoutes(workflows.executions, auth)],
    fallback: app,
    maxBodyBytes: bodyLimitBytes(config.BODY_LIMIT),
    errorStyle: 'public',
    logger,
    metrics,
  });
  return {
    app,
    listener,
    auth,
    openapi,
    documents,
    rag,
    principals: identity.principals,
    audit,
    limits,
    schedules: workflows.schedules(),
    sweepPendingWebhookStarts: workflows.sweepPendingWebhookStarts,
    eventBus: workflows.eventBus,
    executions: workflows.executions,
    gdpr,
  };
}

/** BODY_LIMIT (`1mb`, `512kb`, `1048576b`: the config validates the form) in bytes, as express.json reads it. */
export function bodyLimitBytes(value: string): number {
  const m = /^(\d+)(b|kb|mb)$/i.exec(value.trim());
  if (!m) throw new Error(`BODY_LIMIT must look like 1mb, 512kb or 1048576b, not ${value}`);
  const unit = m[2]!.toLowerCase();
  return Number(m[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
}

/** TRUST_PROXY as Express's `trust proxy` value: a boolean, a hop count, or the proxies' addresses. */
export function trustProxy(value: string): boolean | number | string[] {
  const v = value.trim();
  if (v === 'false' || v === '') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function createApp(deps: PublicApiDeps): express.Express {
  return buildPublicApi(deps).app;
}
