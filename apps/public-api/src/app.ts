import express from 'express';
import type { Mailer } from '@docflow/mail';
import type { StorageDriver } from '@docflow/storage';
import { createHttpApp, HealthCheck, Logger, Metrics } from '@docflow/service-kit';
import { activitiesFeature } from './activities/activities.feature';
import { AuditLog } from './audit/audit-log';
import { createAgentRuntime } from './agents/agent-runtime';
import { createAgentsFeature } from './agents/agents.feature';
import { createSquadsFeature } from './squads/squads.feature';
import { createSchedulesFeature } from './schedules/schedules.feature';
import type { SchedulesService } from './schedules/schedules.service';
import { auditFeature } from './audit/audit.feature';
import { createChatbotsFeature } from './chatbots/chatbots.feature';
import { credentialsFeature } from './credentials/credentials.feature';
import { dataShieldFeature } from './data-shield/data-shield.feature';
import { createAuthModule } from './auth/auth.module';
import type { PrincipalCache } from './auth/principal-cache';
import { classificationJobsFeature } from './classification-jobs/classification-jobs.feature';
import type { AuthGuards } from './auth/guards';
import type { PublicApiConfig } from './config';
import type { PublicApiDatabase } from './data-source';
import type { ApiContext, ApiFeature } from './feature';
import { openApiFeature } from './openapi/openapi.feature';
import { OpenApiRegistry } from './openapi/registry';
import { promptsFeature } from './prompts/prompts.feature';
import { createRagModule, type RagBroker, type RagModule } from './rag';
import { createDocumentFeatures, type DocumentFeatures } from './storage-wiring/document-features';
import { usersFeature } from './users/users.feature';
import { createWebhooksFeature } from './webhooks/webhooks.feature';
import { UsersRepository } from './users/users.repository';
import { UsersService } from './users/users.service';
import { workflowAnalyticsFeature } from './workflow-analytics/workflow-analytics.feature';
import { createExecutionServices, type ExecutionServices, workflowExecutionsFeature } from './workflow-executions/workflow-executions.feature';
import { workflowToolsFeature } from './workflows/workflow-tools.feature';
import { DOCUMENT_IMPORT_ROUTE } from './workflows/event-bus/event-bus.feature';
import { createEventBusModule, defaultDriveSettings, type EventBusDriveSettings, type EventBusModule } from './workflows/event-bus/event-bus.module';

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
   * here). A production feature belongs in BUILT_IN_FEATURES, so that the
   * OpenAPI coverage test sees its routes; what it needs beyond ApiContext
   * (a message publisher for the results consumer's work, say) is added to
   * this interface next to `mailer` and passed on through ApiContext.
   */
  features?: ApiFeature[];
  /** Where documents are stored; default: the driver STORAGE_DRIVER names. */
  storage?: StorageDriver;
  /** RabbitMQ, for RAG indexing jobs (rag_index_queue); without it, enabling RAG answers 503. */
  broker?: RagBroker;
  /** The audit log's writer (main's, closed before the database); default: one of this app's own. */
  audit?: AuditLog;
  /** Execution use cases (main's, shared with the results consumer and the reaper); default: this app's own. */
  executionServices?: ExecutionServices;
  /** CLOUD_DRIVE_* of the runtime contract (main loads CloudDriveConfig); default: its defaults. */
  cloudDrive?: EventBusDriveSettings;
}

/** Features every build serves, in mounting order. */
export const BUILT_IN_FEATURES: readonly ApiFeature[] = [usersFeature, activitiesFeature, workflowToolsFeature, workflowAnalyticsFeature, workflowExecutionsFeature, promptsFeature, classificationJobsFeature, auditFeature, credentialsFeature, dataShieldFeature];

export interface PublicApi {
  app: express.Express;
  auth: AuthGuards;
  openapi: OpenApiRegistry;
  /** Documents and collections: main starts and stops their background text extraction. */
  documents: DocumentFeatures;
  /** RAG: main starts and stops its indexing worker. */
  rag: RagModule;
  /** Authenticated principals; main turns the cache on while it listens for auth changes. */
  principals: PrincipalCache;
  /** The audit log's writer (tests flush it before reading the table). */
  audit: AuditLog;
  /** Workflow schedules: main runs their tick every SCHEDULER_INTERVAL_SECONDS (tests call tick). */
  schedules: SchedulesService;
  /** The event bus: main starts its queue consumer, settler and tick (tests call tick and settleNow). */
  eventBus: EventBusModule;
}

/** Builds the public API (all of it under /api) over the given dependencies; tests use it with a database of their own. */
export function buildPublicApi(deps: PublicApiDeps): PublicApi {
  const users = new UsersService(new UsersRepository(deps.database));
  const audit = deps.audit ?? new AuditLog({ database: deps.database, logger: deps.logger, retentionDays: deps.config.AUDIT_LOG_RETENTION_DAYS });
  const authModule = createAuthModule({ config: deps.config, database: deps.database, users, mailer: deps.mailer, logger: deps.logger, metrics: deps.metrics, audit });
  const openapi = new OpenApiRegistry();
  const ctx: ApiContext = {
    config: deps.config,
    logger: deps.logger,
    metrics: deps.metrics,
    database: deps.database,
    mailer: deps.mailer,
    users,
    auth: authModule.guards,
    openapi,
    audit,
    executions: deps.executionServices ?? createExecutionServices({ config: deps.config, database: deps.database, logger: deps.logger, metrics: deps.metrics, audit }),
  };
  const documents = createDocumentFeatures({ config: deps.config, database: deps.database, logger: deps.logger, audit, storage: deps.storage });
  const rag = createRagModule({ config: deps.config, database: deps.database, logger: deps.logger, metrics: deps.metrics, broker: deps.broker, textExtraction: documents.textExtraction });
  const schedules = createSchedulesFeature();
  const agentRuntime = createAgentRuntime(ctx, { documents, rag });
  const eventBus = createEventBusModule({ ctx, documents, drive: deps.cloudDrive ?? defaultDriveSettings(), broker: deps.broker });
  const features = [authModule.feature, ...BUILT_IN_FEATURES, ...documents.features, rag.feature, createWebhooksFeature({ documents, rag }), createChatbotsFeature({ rag }), createAgentsFeature(agentRuntime), createSquadsFeature(agentRuntime), schedules.feature, eventBus.feature, ...(deps.features ?? []), openApiFeature];

  const app = createHttpApp(
    { logger: deps.logger, metrics: deps.metrics, health: deps.health, errorStyle: 'public', bodyLimit: deps.config.BODY_LIMIT, aliasPrefixes: ['/api'], metricsToken: deps.config.METRICS_TOKEN, rawBodyPaths: [`/api${DOCUMENT_IMPORT_ROUTE}`] },
    (root) => {
      const api = express.Router();
      for (const feature of features) feature.register(api, ctx);
      root.use('/api', api);
    },
  );
  return { app, auth: authModule.guards, openapi, documents, rag, principals: authModule.principals, audit, schedules: schedules.service(), eventBus };
}

export function createApp(deps: PublicApiDeps): express.Express {
  return buildPublicApi(deps).app;
}
