import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
import type { PublicApiDatabase } from '../../platform';
import { ActivityEntity } from '../activities/activity.entity';
import { EXECUTION_STATUSES, type ExecutionStatus } from './execution-status';
import { WorkflowExecutionEntity } from './workflow-execution.entity';

/** What GET /workflow-executions may filter and sort (spec 2.1 list conventions). */
export const executionListSpec = defineListSpec({
  fields: {
    id: { column: '"e"."id"', type: 'integer' },
    status: { column: '"e"."status"', type: 'enum', values: EXECUTION_STATUSES },
    activity: { column: '"e"."activity_id"', type: 'integer' },
    started_at: { column: '"e"."started_at"', type: 'date' },
    completed_at: { column: '"e"."completed_at"', type: 'date' },
    createdAt: { column: '"e"."created_at"', type: 'date' },
    updatedAt: { column: '"e"."updated_at"', type: 'date' },
  },
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
  limits: { defaultPageSize: 25, maxPageSize: 200 },
});

/** One row of the list: the execution's summary columns and its activity's name, never its inputs or outputs. */
export interface ExecutionListRow {
  id: number;
  status: ExecutionStatus;
  activityId: number;
  activityName: string | null;
  startedAt: Date | null;
  completedAt: Date | null;
  error: string | null;
  failedNode: string | null;
  totalCost: string | number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The caller's executions only: another user's never appear, whatever the filters. */
export class ExecutionListRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  async list(userId: number, q: ListQuery): Promise<{ rows: ExecutionListRow[]; total: number }> {
    const scoped = () => this.database.getRepository(WorkflowExecutionEntity).createQueryBuilder('e').where('"e"."user_id" = :userId', { userId });
    const page = applyListQuery(
      scoped()
        .leftJoin(ActivityEntity, 'a', '"a"."id" = "e"."activity_id"')
        .select([
          '"e"."id" AS "id"',
          '"e"."status" AS "status"',
          '"e"."activity_id" AS "activityId"',
          '"a"."name" AS "activityName"',
          '"e"."started_at" AS "startedAt"',
          '"e"."completed_at" AS "completedAt"',
          '"e"."error" AS "error"',
          '"e"."failed_node" AS "failedNode"',
          '"e"."total_cost" AS "totalCost"',
          '"e"."created_at" AS "createdAt"',
          '"e"."updated_at" AS "updatedAt"',
        ]),
      q,
    );
    const counted = q.where ? scoped().andWhere(q.where.sql, q.where.params) : scoped();
    const [rows, total] = await Promise.all([page.getRawMany<ExecutionListRow>(), counted.getCount()]);
    return { rows, total };
  }
}
