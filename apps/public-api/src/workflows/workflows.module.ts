import type { LaneRoute } from '@docflow/service-kit';
import type { DocumentsModule } from '../documents';
import type { IdentityServices } from '../identity';
import { bindFeature, type MountableFeature, type PlatformServices } from '../platform';
import type { RagModule } from '../rag';
import { activitiesFeature } from './activities/activities.feature';
import { ActivitiesRepository } from './activities/activities.repository';
import { ActivitiesService } from './activities/activities.service';
import { workflowAnalyticsFeature } from './analytics/workflow-analytics.feature';
import { executionListFeature } from './executions/execution-list.feature';
import { createExecutionServices, type ExecutionServices, workflowExecutionsFeature } from './executions/workflow-executions.feature';
import { createSchedulesFeature } from './schedules/schedules.feature';
import type { SchedulesService } from './schedules/schedules.service';
import { workflowToolsFeature } from './tools/workflow-tools.feature';
import { createWebhooksFeature } from './webhooks/webhooks.feature';
import { createEventBusModule, defaultDriveSettings, type EventBusBroker, type EventBusDriveSettings, type EventBusModule } from './event-bus/event-bus.module';

export interface WorkflowsModuleDeps extends Pick<PlatformServices, 'config' | 'database' | 'logger' | 'metrics' | 'openapi' | 'limits'>, IdentityServices {
  /** Webhook triggers upload files as documents and may index them for RAG. */
  documents: DocumentsModule;
  rag: RagModule;
  /** Execution use cases (main's, shared with the results consumer and the reaper); default: this module's own. */
  executions?: ExecutionServices;
  /** RabbitMQ for the event bus's read queue; without it drive reads run where the notification arrived. */
  broker?: EventBusBroker;
  /** CLOUD_DRIVE_* (runtime contract); default: their defaults. */
  cloudDrive?: EventBusDriveSettings;
}

export interface WorkflowsModule {
  features: {
    activities: MountableFeature;
    tools: MountableFeature;
    analytics: MountableFeature;
    executionList: MountableFeature;
    executions: MountableFeature;
    /** POST /webhooks/trigger/{id}, mounted ahead of every other feature (see createWebhooksFeature). */
    webhookTrigger: MountableFeature;
    webhooks: MountableFeature;
    schedules: MountableFeature;
    eventBus: MountableFeature;
  };
  /** Cloud-drive and e-mail event sources: main starts their background work. */
  eventBus: EventBusModule;
  executions: ExecutionServices;
  /** Activities for agents' tools (listing, and the Composer's drafts). */
  activities: { repo: ActivitiesRepository; service: ActivitiesService };
  /** The schedules' use case, once their feature is mounted (main's scheduler tick; tests call tick). */
  schedules(): SchedulesService;
  /** Starts accepted webhook triggers whose start is still pending (the workers role's sweep; tests call it); resolves with how many it queued. */
  sweepPendingWebhookStarts(): Promise<number>;
  /** The webhook trigger's route in the request lane (app.ts), once webhookTrigger is mounted. */
  webhookLaneRoutes(): LaneRoute<unknown>[];
}

/** Activities (workflow definitions), their executions, analytics, tools, schedules and webhook triggers. */
export function createWorkflowsModule(deps: WorkflowsModuleDeps): WorkflowsModule {
  const { config, database, logger, metrics, openapi, limits, users, auth, audit } = deps;
  const executions = deps.executions ?? createExecutionServices({ config, database, logger, metrics, audit, quotas: deps.quotas });
  const needs = { config, database, logger, openapi, limits, users, auth, audit, executions };
  const schedules = createSchedulesFeature();
  const webhooks = createWebhooksFeature({ documents: deps.documents, rag: deps.rag });
  const eventBus = createEventBusModule({
    needs: { config, database, logger, openapi, users, quotas: deps.quotas, auth, audit, executions },
    documents: deps.documents,
    drive: deps.cloudDrive ?? defaultDriveSettings(),
    broker: deps.broker,
  });
  const activities = new ActivitiesRepository(database);
  return {
    features: {
      activities: bindFeature(activitiesFeature, needs),
      tools: bindFeature(workflowToolsFeature, needs),
      analytics: bindFeature(workflowAnalyticsFeature, needs),
      executionList: bindFeature(executionListFeature, needs),
      executions: bindFeature(workflowExecutionsFeature, needs),
      webhookTrigger: bindFeature(webhooks.trigger, needs),
      webhooks: bindFeature(webhooks.feature, needs),
      schedules: bindFeature(schedules.feature, needs),
      eventBus: eventBus.feature,
    },
    eventBus,
    executions,
    activities: { repo: activities, service: new ActivitiesService(activities) },
    schedules: () => schedules.service(),
    sweepPendingWebhookStarts: () => webhooks.sweepPendingStarts(),
    webhookLaneRoutes: () => webhooks.laneRoutes() as LaneRoute<unknown>[],
  };
}
