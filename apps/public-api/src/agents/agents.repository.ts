import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
import { uniqueViolation } from '@docflow/persistence';
import type { PublicApiDatabase } from '../data-source';
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

  async insert(row: NewAgentRow): Promise<AgentEntity | 'slug_taken'> {
    try {
      return await this.repo.save(this.repo.create(row));
    } catch (err) {
      if (uniqueViolation(err) !== undefined) return 'slug_taken';
      throw err;
    }
  }

  async update(id: number, changes: AgentRowChanges): Promise<AgentEntity | null | 'slug_taken'> {
    try {
      const result = await this.repo.update({ id }, changes as QueryDeepPartialEntity<AgentEntity>);
      return result.affected ? this.findById(id) : null;
    } catch (err) {
      if (uniqueViolation(err) !== undefined) return 'slug_taken';
      throw err;
    }
  }

  async delete(id: number): Promise<void> {
    await this.repo.delete({ id });
  }
}
