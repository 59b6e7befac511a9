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

export interface WorkflowsModuleDeps extends Pick<PlatformServices, 'config' | 'database' | 'logger' | 'metrics' | 'openapi'>, IdentityServices {
  /** Webhook triggers upload files as documents and may index them for RAG. */
  documents: DocumentsModule;
  rag: RagModule;
  /** Execution use cases (main's, shared with the results consumer and the reaper); default: this module's own. */
  executions?: ExecutionServices;
}

export interface WorkflowsModule {
  features: {
    activities: MountableFeature;
    tools: MountableFeature;
    analytics: MountableFeature;
    executionList: MountableFeature;
    executions: MountableFeature;
    webhooks: MountableFeature;
    schedules: MountableFeature;
  };
  executions: ExecutionServices;
  /** Activities for agents' tools (listing, and the Composer's drafts). */
  activities: { repo: ActivitiesRepository; service: ActivitiesService };
  /** The schedules' use case, once their feature is mounted (main's scheduler tick; tests call tick). */
  schedules(): SchedulesService;
}

/** Activities (workflow definitions), their executions, analytics, tools, schedules and webhook triggers. */
export function createWorkflowsModule(deps: WorkflowsModuleDeps): WorkflowsModule {
  const { config, database, logger, metrics, openapi, users, auth, audit } = deps;
  const executions = deps.executions ?? createExecutionServices({ config, database, logger, metrics, audit });
  const needs = { config, database, logger, openapi, users, auth, audit, executions };
  const schedules = createSchedulesFeature();
  const activities = new ActivitiesRepository(database);
  return {
    features: {
      activities: bindFeature(activitiesFeature, needs),
      tools: bindFeature(workflowToolsFeature, needs),
      analytics: bindFeature(workflowAnalyticsFeature, needs),
      executionList: bindFeature(executionListFeature, needs),
      executions: bindFeature(workflowExecutionsFeature, needs),
      webhooks: bindFeature(createWebhooksFeature({ documents: deps.documents, rag: deps.rag }), needs),
      schedules: bindFeature(schedules.feature, needs),
    },
    executions,
    activities: { repo: activities, service: new ActivitiesService(activities) },
    schedules: () => schedules.service(),
  };
}
