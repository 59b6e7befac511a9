import type { Logger } from '@docflow/service-kit';
import type { DatabaseOptions } from '@docflow/persistence';
import { RouterJobEntity } from './jobs/router-job.entity';
import { CreateRouterJobs1765000000000 } from './migrations/1765000000000-CreateRouterJobs';
import { DropRouterJobsToken1790000000000 } from './migrations/1790000000000-DropRouterJobsToken';
import { AddRouterJobsUpdatedIndex1790000000232 } from './migrations/1790000000232-AddRouterJobsUpdatedIndex';
import { DropRouterJobsStatusIndex1790000000540 } from './migrations/1790000000540-DropRouterJobsStatusIndex';

/** The router's own tables and migrations (recorded in `router_migrations`). */
export function routerDatabaseOptions(url: string, logger?: Logger, poolSize?: number): DatabaseOptions {
  return {
    url,
    entities: [RouterJobEntity],
    migrations: [CreateRouterJobs1765000000000, DropRouterJobsToken1790000000000, AddRouterJobsUpdatedIndex1790000000232, DropRouterJobsStatusIndex1790000000540],
    migrationsTableName: 'router_migrations',
    poolSize,
    logger,
  };
}
