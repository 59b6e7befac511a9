import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { uniqueViolation } from '@docflow/persistence';
import type { PublicApiDatabase } from '../data-source';
import { SquadEntity } from './squad.entity';

export type NewSquadRow = Omit<SquadEntity, 'id' | 'createdAt' | 'updatedAt'>;
export type SquadRowChanges = Partial<Omit<NewSquadRow, 'ownerId'>>;

export class SquadsRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  private get repo() {
    return this.database.getRepository(SquadEntity);
  }

  listOwned(ownerId: number): Promise<SquadEntity[]> {
    return this.repo.find({ where: { ownerId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  findOwned(id: number, ownerId: number): Promise<SquadEntity | null> {
    return this.repo.findOneBy({ id, ownerId });
  }

  async insert(row: NewSquadRow): Promise<SquadEntity | 'slug_taken'> {
    try {
      return await this.repo.save(this.repo.create(row));
    } catch (err) {
      if (uniqueViolation(err) !== undefined) return 'slug_taken';
      throw err;
    }
  }

  /** The updated squad, null when the owner has none with this id, `slug_taken` when the slug is in use. */
  async update(id: number, ownerId: number, changes: SquadRowChanges): Promise<SquadEntity | null | 'slug_taken'> {
    try {
      const result = await this.repo.update({ id, ownerId }, changes as QueryDeepPartialEntity<SquadEntity>);
      return result.affected ? this.findOwned(id, ownerId) : null;
    } catch (err) {
      if (uniqueViolation(err) !== undefined) return 'slug_taken';
      throw err;
    }
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    return ((await this.repo.delete({ id, ownerId })).affected ?? 0) > 0;
  }
}
