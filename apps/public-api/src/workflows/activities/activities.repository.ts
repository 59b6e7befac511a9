import { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
import { preparedRows } from '@docflow/persistence';
import { ACTIVITY_LEVELS, ACTIVITY_STATUSES, type ActivityLevel, type ActivityStatus } from './activity-vocabulary';
import { ActivityEntity } from './activity.entity';

/** What GET /activities may filter, sort and populate (spec 2.1 list conventions). */
export const activityListSpec = defineListSpec({
  fields: {
    id: { column: '"a"."id"', type: 'integer' },
    name: { column: '"a"."name"', type: 'string' },
    description: { column: '"a"."description"', type: 'string' },
    workflow_type: { column: '"a"."workflow_type"', type: 'string' },
    status: { column: '"a"."status"', type: 'enum', values: ACTIVITY_STATUSES },
    level: { column: '"a"."level"', type: 'enum', values: ACTIVITY_LEVELS },
    execution_deadline_seconds: { column: '"a"."execution_deadline_seconds"', type: 'integer' },
    'owner.id': { column: '"a"."owner_id"', type: 'integer' },
    createdAt: { column: '"a"."created_at"', type: 'date' },
    updatedAt: { column: '"a"."updated_at"', type: 'date' },
  },
  relations: ['owner'],
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
});

export type ActivityListQuery = ListQuery<'owner'>;

export interface NewActivityRow {
  name: string;
  description: string | null;
  workflowType: string;
  status: ActivityStatus;
  level: ActivityLevel;
  ownerId: number | null;
  workflowDefinition: Record<string, unknown>;
  executionDeadlineSeconds: number | null;
  dataShieldPolicy: Record<string, unknown> | null;
}

export type ActivityChanges = Partial<NewActivityRow>;

/** What creating, starting and resuming an execution read of its activity: one SELECT, no owner join, no entity. */
export type ActivityForExecution = Pick<ActivityEntity, 'id' | 'level' | 'ownerId' | 'workflowDefinition' | 'executionDeadlineSeconds' | 'dataShieldPolicy'>;

/**
 * The same with the row version read (`xmin`: the id of the transaction that wrote this version of the row; any
 * UPDATE by any writer, raw SQL included, gives the row a new one), for caches that an insert checks against the
 * current row (ActivityDefinitionCache).
 */
export type VersionedActivity = ActivityForExecution & { version: string };

export class ActivitiesRepository {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(ActivityEntity);
  }

  /** The activity with its owner loaded. */
  findById(id: number): Promise<ActivityEntity | null> {
    return this.repo.createQueryBuilder('a').leftJoinAndSelect('a.owner', 'o').where('a.id = :id', { id }).getOne();
  }

  async findForExecution(id: number): Promise<VersionedActivity | null> {
    const rows = await preparedRows<VersionedActivity>(
      this.ds,
      'activity_for_execution',
      `SELECT id, level, owner_id AS "ownerId", workflow_definition AS "workflowDefinition",
              execution_deadline_seconds AS "executionDeadlineSeconds", data_shield_policy AS "dataShieldPolicy", xmin::text AS version
         FROM activities WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** System-level activities plus those owned by `viewerId`, filtered, sorted and paged. */
  async list(viewerId: number, q: ActivityListQuery): Promise<{ rows: ActivityEntity[]; total: number }> {
    let qb = this.repo.createQueryBuilder('a').where(`("a"."level" = 'system' OR "a"."owner_id" = :viewerId)`, { viewerId });
    // A to-one join never multiplies rows, so it cannot eat the page.
    if (q.populate.includes('owner')) qb = qb.leftJoinAndSelect('a.owner', 'o');
    const [rows, total] = await applyListQuery(qb, q).getManyAndCount();
    return { rows, total };
  }

  async insert(row: NewActivityRow): Promise<ActivityEntity> {
    const saved = await this.repo.save(this.repo.create(row));
    return (await this.findById(saved.id)) ?? saved;
  }

  async update(id: number, changes: ActivityChanges): Promise<ActivityEntity | null> {
    // jsonb columns hold plain objects, which TypeORM's deep-partial type does not model.
    if (Object.keys(changes).length > 0) await this.repo.update({ id }, changes as QueryDeepPartialEntity<ActivityEntity>);
    return this.findById(id);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.repo.delete({ id });
    return (result.affected ?? 0) > 0;
  }
}
