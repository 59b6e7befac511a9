import { paginationMeta, type PaginationMeta } from '@docflow/list-query';
import type { PromptType, RtioRole } from '@docflow/rtio';
import { ForbiddenError, NotFoundError } from '@docflow/service-kit';
import type { AuthUser } from '../../identity';
import type { PromptEntity } from './prompt.entity';
import type { CreatePromptBody, UpdatePromptBody } from './prompts.dto';
import { type NewPromptRow, type PromptChanges, type PromptListQuery, type PromptsRepository, UNPUBLISHED } from './prompts.repository';

/** A prompt as the API returns it (spec 2.4), with the spec's camelCase names: the stored fields, without the owner's id. */
export interface PromptView extends Omit<NewPromptRow, 'ownerId'> {
  id: number;
  /** Whether the current template passed publishing (issue 18); an edit of the template clears it. */
  published: boolean;
  publishedAt: string | null;
  publishedVersion: string | null;
  /** `{id, username}` (spec 2.4), in lists too; null for ownerless system prompts. */
  owner: { id: number; username: string } | null;
  createdAt: string;
  updatedAt: string;
}

export function toPromptView(p: PromptEntity): PromptView {
  return {
    id: p.id,
    title: p.title,
    type: p.type,
    level: p.level,
    section: p.section,
    description: p.description,
    roles: p.roles,
    tasks: p.tasks,
    instructions: p.instructions,
    outputFormat: p.outputFormat,
    exampleOutput: p.exampleOutput,
    version: p.version,
    published: p.publishedAt !== null,
    publishedAt: p.publishedAt ? p.publishedAt.toISOString() : null,
    publishedVersion: p.publishedVersion,
    owner: p.owner ? { id: p.owner.id, username: p.owner.username } : null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export const PROMPT_NOT_FOUND = 'Prompt not found';
export const DEFAULT_PROMPT_VERSION = '1.0.0';

export type PromptCaller = Pick<AuthUser, 'id' | 'role'>;

function isAdmin(user: PromptCaller): boolean {
  return user.role === 'super_admin';
}

/** System prompts are visible to everyone, the rest to their owner; a super administrator reads any prompt by id. */
function canRead(user: PromptCaller, p: Pick<PromptEntity, 'level' | 'ownerId'>): boolean {
  return p.level === 'system' || p.ownerId === user.id || isAdmin(user);
}

/** The validated roles as plain `{role, prompt}` objects, without any other field a client sent. */
function plainRoles(roles: { role: RtioRole['role']; prompt: string }[]): RtioRole[] {
  return roles.map((r) => ({ role: r.role, prompt: r.prompt }));
}

/** Prompt CRUD (spec 4.4) with the visibility rules of spec 1 and the level rule of spec 2.4. */
export class PromptsService {
  constructor(private readonly repo: PromptsRepository) {}

  async list(user: PromptCaller, q: PromptListQuery): Promise<{ data: PromptView[]; meta: { pagination: PaginationMeta } }> {
    const { rows, total } = await this.repo.list(user.id, q);
    return { data: rows.map((p) => toPromptView(p)), meta: { pagination: paginationMeta(q.pagination, total) } };
  }

  /** 404 `Prompt not found` when the prompt is missing or belongs to someone else (others' prompts are not revealed). */
  async findReadable(user: PromptCaller, id: number): Promise<PromptEntity> {
    const p = await this.repo.findById(id);
    if (!p || !canRead(user, p)) throw new NotFoundError(PROMPT_NOT_FOUND);
    return p;
  }

  async get(user: PromptCaller, id: number): Promise<PromptView> {
    return toPromptView(await this.findReadable(user, id));
  }

  /**
   * Creates a prompt owned by the caller. `level` is required; a caller who
   * is not a super administrator always gets `user`, whatever was asked.
   */
  async create(user: PromptCaller, body: CreatePromptBody): Promise<PromptView> {
    const created = await this.repo.insert({
      title: body.title.trim(),
      type: body.type,
      level: isAdmin(user) ? body.level : 'user',
      section: body.section ?? null,
      description: body.description ?? null,
      roles: plainRoles(body.roles ?? []),
      tasks: body.tasks ?? [],
      instructions: body.instructions ?? [],
      outputFormat: body.outputFormat ?? 'json',
      exampleOutput: body.exampleOutput ?? null,
      version: body.version ?? DEFAULT_PROMPT_VERSION,
      ownerId: user.id,
    });
    return toPromptView(created);
  }

  /** `body` as parsePromptBody read it: a field it holds is a field the request sent (null clears section, description, exampleOutput). */
  async update(user: PromptCaller, id: number, body: UpdatePromptBody): Promise<PromptView> {
    const current = await this.findWritable(user, id);
    const changes: PromptChanges = {};
    if (body.title !== undefined) changes.title = body.title.trim();
    if (body.type !== undefined) changes.type = body.type;
    if ('section' in body) changes.section = body.section ?? null;
    if ('description' in body) changes.description = body.description ?? null;
    if (body.roles !== undefined) changes.roles = plainRoles(body.roles);
    if (body.tasks !== undefined) changes.tasks = body.tasks;
    if (body.instructions !== undefined) changes.instructions = body.instructions;
    if (body.outputFormat !== undefined) changes.outputFormat = body.outputFormat;
    if ('exampleOutput' in body) changes.exampleOutput = body.exampleOutput ?? null;
    if (body.version !== undefined) changes.version = body.version;
    // Only a super administrator changes the level; a user-level prompt needs an owner, so an ownerless one becomes the admin's.
    if (body.level !== undefined && isAdmin(user) && body.level !== current.level) {
      changes.level = body.level;
      if (body.level === 'user' && current.ownerId === null) changes.ownerId = user.id;
    }
    // What the linter checked changed: the prompt must be published again.
    const template: (keyof PromptChanges)[] = ['type', 'roles', 'tasks', 'instructions', 'outputFormat', 'exampleOutput', 'version'];
    if (current.publishedAt !== null && template.some((k) => k in changes)) Object.assign(changes, UNPUBLISHED);
    const updated = await this.repo.update(id, changes);
    if (!updated) throw new NotFoundError(PROMPT_NOT_FOUND);
    return toPromptView(updated);
  }

  async delete(user: PromptCaller, id: number): Promise<{ id: number }> {
    await this.findWritable(user, id);
    if (!(await this.repo.delete(id))) throw new NotFoundError(PROMPT_NOT_FOUND);
    return { id };
  }

  /** The prompts a user sees (system plus own), for internal services such as the extraction processor. */
  async visibleTo(userId: number, type?: PromptType): Promise<PromptView[]> {
    return (await this.repo.visibleTo(userId, type)).map((p) => toPromptView(p));
  }

  /**
   * Its owner or a super administrator may change a prompt. System prompts
   * are read-only for everyone else (403: they are visible, so 404 would be
   * a lie); others' prompts are 404.
   */
  async findWritable(user: PromptCaller, id: number): Promise<PromptEntity> {
    const p = await this.findReadable(user, id);
    if (isAdmin(user)) return p;
    if (p.level === 'system') throw new ForbiddenError('System prompts can only be changed by a super administrator');
    if (p.ownerId !== user.id) throw new NotFoundError(PROMPT_NOT_FOUND);
    return p;
  }
}
