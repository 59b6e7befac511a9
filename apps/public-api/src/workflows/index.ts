// The workflows module: activities (workflow definitions), their executions, analytics, tools, schedules and webhook triggers.
import { ActivityEntity } from './activities/activity.entity';
import { WorkflowExecutionStepEntity } from './executions/workflow-execution-step.entity';
import { WorkflowExecutionEntity } from './executions/workflow-execution.entity';
import { CreateActivities1764000000010 } from './migrations/1764000000010-CreateActivities';
import { CreateWorkflowExecutions1764000000011 } from './migrations/1764000000011-CreateWorkflowExecutions';
import { AddExecutionAnalyticsIndex1764000000040 } from './migrations/1764000000040-AddExecutionAnalyticsIndex';
import { AddExecutionRetryOf1764000000095 } from './migrations/1764000000095-AddExecutionRetryOf';
import { CreateWebhooks1764000000072 } from './migrations/1764000000072-CreateWebhooks';
import { CreateWorkflowSchedules1764000000076 } from './migrations/1764000000076-CreateWorkflowSchedules';
import { ScheduleEntity } from './schedules/schedule.entity';
import { WebhookEntity } from './webhooks/webhook.entity';
import { EventLogEntity, EventSourceEntity, EventSubscriptionEntity } from './event-bus/event-bus.entity';
import { CreateEventBus1764000000092 } from './event-bus/migrations/1764000000092-CreateEventBus';
import { ExecutionStatusNotifications1764000000290 } from './migrations/1764000000290-ExecutionStatusNotifications';
import { AddRetentionIndexes1764000000231 } from './migrations/1764000000231-AddRetentionIndexes';
import { AddExecutionStartPending1790000000530 } from './migrations/1790000000530-AddExecutionStartPending';
import { ExecutionChangedCarriesTerminalStatus1790000000560 } from './migrations/1790000000560-ExecutionChangedCarriesTerminalStatus';
import { AddExecutionResumeJob1790000000640 } from './migrations/1790000000640-AddExecutionResumeJob';
import { ExecutionChangesAnnouncedByCaller1790000000650 } from './migrations/1790000000650-ExecutionChangesAnnouncedByCaller';

export { createWorkflowsModule } from './workflows.module';
export type { WorkflowsModule, WorkflowsModuleDeps } from './workflows.module';
export { createExecutionServices, executionLaneRoutes } from './executions/workflow-executions.feature';
export type { ExecutionServices } from './executions/workflow-executions.feature';
export type { SchedulesService } from './schedules/schedules.service';
export { DOCUMENT_IMPORT_ROUTE } from './event-bus/event-bus.feature';
export type { EventBusDriveSettings, EventBusModule } from './event-bus/event-bus.module';

export const WORKFLOWS_ENTITIES = [ActivityEntity, WorkflowExecutionEntity, WorkflowExecutionStepEntity, WebhookEntity, ScheduleEntity, EventSourceEntity, EventSubscriptionEntity, EventLogEntity];
export const WORKFLOWS_MIGRATIONS = [
  CreateActivities1764000000010,
  CreateWorkflowExecutions1764000000011,
  AddExecutionAnalyticsIndex1764000000040,
  CreateWebhooks1764000000072,
  CreateWorkflowSchedules1764000000076,
  CreateEventBus1764000000092,
  AddExecutionRetryOf1764000000095,
  ExecutionStatusNotifications1764000000290,
  AddRetentionIndexes1764000000231,
  AddExecutionStartPending1790000000530,
  ExecutionChangedCarriesTerminalStatus1790000000560,
  AddExecutionResumeJob1790000000640,
  ExecutionChangesAnnouncedByCaller1790000000650,
];

// Used by other modules.
export { activityListSpec } from './activities/activities.repository';
export type { ActivitiesRepository } from './activities/activities.repository';
export type { ActivitiesService } from './activities/activities.service';
export { CreateActivityBody } from './activities/activities.dto';
export type { Caller } from './activities/activities.service';
export { startExecutionReaper } from './executions/execution-reaper';
export { executionIdOf } from './executions/result-application';
export type { ApplyOutcome as ExecutionResultOutcome, ExecutionResultsService } from './executions/execution-results.service';
export { EXECUTION_CHANGED_CHANNEL } from './executions/execution-watch';
export { startScheduler } from './schedules/schedules.service';
export { WEBHOOK_START_SWEEP_INTERVAL_MS } from './webhooks/webhook-accept';
export { workflowsUserData } from './user-data';
export type { WorkflowsUserDataDeps } from './user-data';
export { executionRetention } from './retention/retention';
export type { RetentionRemoved } from './retention/retention';
