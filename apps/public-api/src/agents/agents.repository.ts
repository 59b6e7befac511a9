import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
import type { PublicApiDatabase } from '../platform';
import { slugTakenOr } from '../platform';
import { AgentEntity } from './agent.entity';

export const agentListSpec = defineListSpec({
  fields: {
    id: { column: '"g"."id"', type: 'integer' },
    name: { column: '"g"."name"', type: 'string' },
    slug: { column: '"g"."slug"', type: 'string' },
    active: { column: '"g"."active"', type: 'boolean' },
    createdAt: { column: '"g"."created_at"', type: 'date' },
    updatedAt: { column: '"g"."updated_at"', type: 'date' },
  },
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
});

export type NewAgentRow = Omit<AgentEntity, 'id' | 'createdAt' | 'updatedAt'>;
export type AgentRowChanges = Partial<Omit<NewAgentRow, 'ownerId'>>;

export class AgentsRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  private get repo() {
    return this.database.getRepository(AgentEntity);
  }

  async listOwned(ownerId: number, q: ListQuery): Promise<{ rows: AgentEntity[]; total: number }> {
    const qb = this.repo.createQueryBuilder('g').where('"g"."owner_id" = :ownerId', { ownerId });
    const [rows, total] = await applyListQuery(qb, q).getManyAndCount();
    return { rows, total };
  }

  /** The caller's agents and the system ones (for the Composer's listing). */
  visibleTo(userId: number): Promise<AgentEntity[]> {
    return this.repo.createQueryBuilder('g').where('"g"."owner_id" = :userId OR "g"."owner_id" IS NULL', { userId }).orderBy('"g"."id"').limit(200).getMany();
  }

  findById(id: number): Promise<AgentEntity | null> {
    return this.repo.findOneBy({ id });
  }

  findBySlug(slug: string): Promise<AgentEntity | null> {
    return this.repo.findOneBy({ slug });
  }

  insert(row: NewAgentRow): Promise<AgentEntity | 'slug_taken'> {
    return slugTakenOr(() => this.repo.save(this.repo.create(row)));
  }

  async update(id: number, changes: AgentRowChanges): Promise<AgentEntity | null | 'slug_taken'> {
    const result = await slugTakenOr(() => this.repo.update({ id }, changes as QueryDeepPartialEntity<AgentEntity>));
    if (result === 'slug_taken') return result;
    return result.affected ? this.findById(id) : null;
  }

  async delete(id: number): Promise<void> {
    await this.repo.delete({ id });
  }
}
