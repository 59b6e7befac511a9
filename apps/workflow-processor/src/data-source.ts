import type { DatabaseOptions } from '@docflow/persistence';
import type { Logger } from '@docflow/service-kit';
import { WorkflowNodeRunEntity } from './checkpoints/workflow-node-run.entity';
import { CreateWorkflowNodeRuns1766000000000 } from './migrations/1766000000000-CreateWorkflowNodeRuns';
import { CreateWorkflowWakeups1764000000230 } from './migrations/1764000000230-CreateWorkflowWakeups';

/** The processor's own tables and migrations (recorded in `workflow_processor_migrations`). */
export function workflowProcessorDatabaseOptions(url: string, logger?: Logger, poolSize?: number): DatabaseOptions {
  return {
    url,
    entities: [WorkflowNodeRunEntity],
    migrations: [CreateWorkflowNodeRuns1766000000000, CreateWorkflowWakeups1764000000230],
    migrationsTableName: 'workflow_processor_migrations',
    poolSize,
    logger,
  };
}
