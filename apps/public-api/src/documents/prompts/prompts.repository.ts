import { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
import { PROMPT_LEVELS, PROMPT_TYPES, RTIO_OUTPUT_FORMATS, type PromptLevel, type PromptType, type RtioOutputFormat, type RtioRole } from '@docflow/rtio';
import { PromptEntity } from './prompt.entity';

/**
 * Levels GET /prompts may filter on: the two a prompt can have (spec 2.4) and
 * `internal`, which spec 1 names for prompts too; no prompt is internal, so
 * that filter finds nothing rather than being refused.
 */
const FILTER_LEVELS = [...PROMPT_LEVELS, 'internal'] as const;

/** What GET /prompts may filter, sort and populate (spec 2.1 list conventions). */
export const promptListSpec = defineListSpec({
  fields: {
    id: { column: '"p"."id"', type: 'integer' },
    title: { column: '"p"."title"', type: 'string' },
    type: { column: '"p"."type"', type: 'enum', values: PROMPT_TYPES },
    level: { column: '"p"."level"', type: 'enum', values: FILTER_LEVELS },
    section: { column: '"p"."section"', type: 'string' },
    description: { column: '"p"."description"', type: 'string' },
    outputFormat: { column: '"p"."output_format"', type: 'enum', values: RTIO_OUTPUT_FORMATS },
    version: { column: '"p"."version"', type: 'string' },
    'owner.id': { column: '"p"."owner_id"', type: 'integer' },
    createdAt: { column: '"p"."created_at"', type: 'date' },
    updatedAt: { column: '"p"."updated_at"', type: 'date' },
  },
  relations: ['owner'],
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
});

export type PromptListQuery = ListQuery<'owner'>;

export interface NewPromptRow {
  title: string;
  type: PromptType;
  level: PromptLevel;
  section: string | null;
  description: string | null;
  roles: RtioRole[];
  tasks: string[];
  instructions: string[];
  outputFormat: RtioOutputFormat;
  exampleOutput: Record<string, unknown> | null;
  version: string;
  ownerId: number | null;
}

/** A publication: who, which version, and the reason when an administrator overrode the linter; null clears it. */
export interface Publication {
  publishedAt: Date | null;
  publishedBy: number | null;
  publishedVersion: string | null;
  publishOverrideReason: string | null;
}

export const UNPUBLISHED: Publication = { publishedAt: null, publishedBy: null, publishedVersion: null, publishOverrideReason: null };

export type PromptChanges = Partial<NewPromptRow> & Partial<Publication>;

/** Most prompts one internal read returns (system plus a user's own). */
export const INTERNAL_PROMPT_LIMIT = 1000;

export class PromptsRepository {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(PromptEntity);
  }

  /** The prompt with its owner loaded. */
  findById(id: number): Promise<PromptEntity | null> {
    return this.repo.createQueryBuilder('p').leftJoinAndSelect('p.owner', 'o').where('p.id = :id', { id }).getOne();
  }

  /** System prompts plus those owned by `viewerId`, filtered, sorted and paged. */
  async list(viewerId: number, q: PromptListQuery): Promise<{ rows: PromptEntity[]; total: number }> {
    // The owner is part of every prompt (spec 2.4); a to-one join never multiplies rows, so it cannot eat the page.
    const qb = this.repo.createQueryBuilder('p').leftJoinAndSelect('p.owner', 'o').where(`("p"."level" = 'system' OR "p"."owner_id" = :viewerId)`, { viewerId });
    const [rows, total] = await applyListQuery(qb, q).getManyAndCount();
    return { rows, total };
  }

  /** Every prompt `userId` sees (system plus own), oldest first, optionally of one type; for internal services. */
  visibleTo(userId: number, type?: PromptType): Promise<PromptEntity[]> {
    let qb = this.repo.createQueryBuilder('p').leftJoinAndSelect('p.owner', 'o').where(`("p"."level" = 'system' OR "p"."owner_id" = :userId)`, { userId });
    if (type) qb = qb.andWhere('"p"."type" = :type', { type });
    return qb.orderBy('p.id', 'ASC').take(INTERNAL_PROMPT_LIMIT).getMany();
  }

  async insert(row: NewPromptRow): Promise<PromptEntity> {
    // jsonb columns hold plain arrays and objects, which TypeORM's deep-partial type does not model.
    const saved = await this.repo.save(this.repo.create(row as unknown as Partial<PromptEntity>));
    return (await this.findById(saved.id)) ?? saved;
  }

  async update(id: number, changes: PromptChanges): Promise<PromptEntity | null> {
    if (Object.keys(changes).length > 0) await this.repo.update({ id }, changes as QueryDeepPartialEntity<PromptEntity>);
    return this.findById(id);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.repo.delete({ id });
    return (result.affected ?? 0) > 0;
  }

  /** The owner of a document, or undefined when there is no such document (generate-rtio's 403 versus 404). */
  async documentOwner(documentId: number): Promise<number | undefined> {
    const rows = (await this.ds.query('SELECT owner_id FROM documents WHERE id = $1', [documentId])) as { owner_id: number }[];
    return rows[0]?.owner_id;
  }
}
