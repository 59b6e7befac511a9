import { errorMessage, type Logger } from '@docflow/service-kit';
import type { UserDataHolder } from '../identity';
import type { PublicApiDatabase } from '../platform';
import type { EventBusModule } from './event-bus/event-bus.module';
import { WorkflowsUserDataRepository } from './user-data.repository';

export interface WorkflowsUserDataDeps {
  database: PublicApiDatabase;
  logger: Logger;
  /** Stops each source's drive watch or mailbox before its row goes. */
  eventBus: Pick<EventBusModule, 'service'>;
  /** The router's records of the user's executions (the platform's RouterClient.purgeJobs). */
  purgeRouterJobs(jobIds: readonly string[]): Promise<number>;
}

/**
 * The workflows module's part in data exports and account deletions (issue
 * #18): activities, executions with their timelines, webhooks, schedules and
 * event sources with their subscriptions and logs. A deletion stops every
 * source (drive watch or mailbox), has the router forget the executions'
 * jobs, then removes the rows.
 */
export function workflowsUserData(deps: WorkflowsUserDataDeps): UserDataHolder {
  const repo = new WorkflowsUserDataRepository(deps.database);
  return {
    service: 'workflows',
    async exportUser(userId) {
      return {
        sections: {
          activities: await repo.activities(userId),
          executions: await repo.executions(userId),
          webhooks: await repo.webhooks(userId),
          schedules: await repo.schedules(userId),
          event_sources: await repo.eventSources(userId),
          event_subscriptions: await repo.eventSubscriptions(userId),
          event_logs: await repo.eventLogs(userId),
          cloud_drive: await repo.driveGrant(userId),
        },
      };
    },
    async purgeUser(userId) {
      let sourcesStopped = 0;
      for (const id of await repo.sourceIds(userId)) {
        try {
          await deps.eventBus.service.deleteSource(userId, id);
          sourcesStopped += 1;
        } catch (err) {
          // A watch the drive no longer knows must not keep the account: the row goes below anyway.
          deps.logger.warn('could not stop an event source of a deleted account', { sourceId: id, error: errorMessage(err) });
        }
      }
      const routerJobs = await deps.purgeRouterJobs(await repo.executionJobIds(userId));
      return { ...(await repo.deleteAll(userId)), sourcesStopped, routerJobs };
    },
  };
}
