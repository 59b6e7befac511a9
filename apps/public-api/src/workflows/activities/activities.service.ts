import { paginationMeta, type PaginationMeta } from '@docflow/list-query';
import { ForbiddenError, NotFoundError } from '@docflow/service-kit';
import type { AuthUser } from '../../identity';
import type { CreateActivityBody, InstantiateActivityBody, UpdateActivityBody } from './activities.dto';
import type { ActivitiesRepository, ActivityChanges, ActivityListQuery } from './activities.repository';
import { DEFAULT_ACTIVITY_STATUS, DEFAULT_WORKFLOW_TYPE, type ActivityLevel, type ActivityStatus } from './activity-vocabulary';
import type { ActivityEntity } from './activity.entity';

/** An activity as the API returns it (spec 2.5). */
export interface ActivityView {
  id: number;
  name: string;
  description: string | null;
  workflow_type: string;
  status: ActivityStatus;
  level: ActivityLevel;
  workflow_definition: Record<string, unknown>;
  execution_deadline_seconds: number | null;
  data_shield_policy: Record<string, unknown> | null;
  /** `{id, username, email}`; null for ownerless system items; absent from lists unless populated. */
  owner?: { id: number; username: string; email: string } | null;
  createdAt: string;
  updatedAt: string;
}

export function toActivityView(a: ActivityEntity, withOwner: boolean): ActivityView {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    workflow_type: a.workflowType,
    status: a.status,
    level: a.level,
    workflow_definition: a.workflowDefinition,
    execution_deadline_seconds: a.executionDeadlineSeconds,
    data_shield_policy: a.dataShieldPolicy,
    ...(withOwner ? { owner: a.owner ? { id: a.owner.id, username: a.owner.username, email: a.owner.email } : null } : {}),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export const ACTIVITY_NOT_FOUND = 'Activity not found';

/** Who acts: an authenticated user, or a feature acting for one (a webhook for its owner). */
export type Caller = Pick<AuthUser, 'id' | 'role'>;

function isAdmin(user: Caller): boolean {
  return user.role === 'super_admin';
}

/** System items are visible to everyone, the rest to their owner; a super administrator sees every item by id. */
export function canRead(user: Caller, a: Pick<ActivityEntity, 'level' | 'ownerId'>): boolean {
  return a.level === 'system' || a.ownerId === user.id || isAdmin(user);
}

/** Activities CRUD and instantiate (spec 4.6), with the visibility rules of spec 1. */
export class ActivitiesService {
  constructor(private readonly repo: ActivitiesRepository) {}

  async list(user: Caller, q: ActivityListQuery): Promise<{ data: ActivityView[]; meta: { pagination: PaginationMeta } }> {
    const { rows, total } = await this.repo.list(user.id, q);
    const withOwner = q.populate.includes('owner');
    return { data: rows.map((a) => toActivityView(a, withOwner)), meta: { pagination: paginationMeta(q.pagination, total) } };
  }

  /** The activity when the caller may read it; 404 `Activity not found` otherwise (others' items are not revealed). */
  async findReadable(user: Caller, id: number): Promise<ActivityEntity> {
    const a = await this.repo.findById(id);
    if (!a || !canRead(user, a)) throw new NotFoundError(ACTIVITY_NOT_FOUND);
    return a;
  }

  async get(user: Caller, id: number): Promise<ActivityView> {
    return toActivityView(await this.findReadable(user, id), true);
  }

  /** `body` as the route read it (parseBody with CreateActivityBody). */
  async create(user: Caller, body: CreateActivityBody): Promise<ActivityView> {
    const created = await this.repo.insert({
      name: body.name.trim(),
      description: body.description ?? null,
      workflowType: body.workflow_type ?? DEFAULT_WORKFLOW_TYPE,
      status: body.status ?? DEFAULT_ACTIVITY_STATUS,
      // Only a super administrator chooses the level; everyone else creates user-level items.
      level: isAdmin(user) ? (body.level ?? 'user') : 'user',
      ownerId: user.id,
      workflowDefinition: body.workflow_definition,
      executionDeadlineSeconds: body.execution_deadline_seconds ?? null,
      dataShieldPolicy: body.data_shield_policy ?? null,
    });
    return toActivityView(created, true);
  }

  /** `body` as the route read it (parseBody with UpdateActivityBody): a field it holds is a field the request sent. */
  async update(user: Caller, id: number, body: UpdateActivityBody): Promise<ActivityView> {
    await this.findWritable(user, id);
    const changes: ActivityChanges = {};
    if (body.name !== undefined) changes.name = body.name.trim();
    if (body.description !== undefined) changes.description = body.description;
    if (body.workflow_definition !== undefined) changes.workflowDefinition = body.workflow_definition;
    if (body.status !== undefined) changes.status = body.status;
    if (body.workflow_type !== undefined) changes.workflowType = body.workflow_type;
    if ('execution_deadline_seconds' in body) changes.executionDeadlineSeconds = body.execution_deadline_seconds ?? null;
    if ('data_shield_policy' in body) changes.dataShieldPolicy = body.data_shield_policy ?? null;
    // A non-admin's `level` is ignored, as on create.
    if (body.level !== undefined && isAdmin(user)) changes.level = body.level;
    const updated = await this.repo.update(id, changes);
    if (!updated) throw new NotFoundError(ACTIVITY_NOT_FOUND);
    return toActivityView(updated, true);
  }

  async delete(user: Caller, id: number): Promise<{ id: number }> {
    await this.findWritable(user, id);
    if (!(await this.repo.delete(id))) throw new NotFoundError(ACTIVITY_NOT_FOUND);
    return { id };
  }

  /** A user-level copy owned by the caller (spec 4.6), as a draft. */
  async instantiate(user: Caller, id: number, body: InstantiateActivityBody): Promise<{ workflow_id: number; workflow: ActivityView }> {
    const source = await this.findReadable(user, id);
    const copy = await this.repo.insert({
      name: body.name?.trim() ?? `${source.name} (Copy)`.slice(0, 255),
      description: body.description !== undefined ? body.description : source.description,
      workflowType: source.workflowType,
      status: DEFAULT_ACTIVITY_STATUS,
      level: 'user',
      ownerId: user.id,
      workflowDefinition: structuredClone(source.workflowDefinition),
      executionDeadlineSeconds: source.executionDeadlineSeconds,
      dataShieldPolicy: source.dataShieldPolicy === null ? null : structuredClone(source.dataShieldPolicy),
    });
    return { workflow_id: copy.id, workflow: toActivityView(copy, true) };
  }

  /**
   * The activity when the caller may change it: its owner or a super
   * administrator. System items are read-only for everyone else (403: they
   * are visible, so 404 would be a lie); others' items are 404.
   */
  private async findWritable(user: Caller, id: number): Promise<ActivityEntity> {
    const a = await this.findReadable(user, id);
    if (isAdmin(user)) return a;
    if (a.level === 'system') throw new ForbiddenError('System activities can only be changed by a super administrator');
    if (a.ownerId !== user.id) throw new NotFoundError(ACTIVITY_NOT_FOUND);
    return a;
  }
}
