import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { PublicApiDatabase } from '../../platform';
import { slugTakenOr } from '../../platform';
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

  insert(row: NewSquadRow): Promise<SquadEntity | 'slug_taken'> {
    return slugTakenOr(() => this.repo.save(this.repo.create(row)));
  }

  /** The updated squad, null when the owner has none with this id, `slug_taken` when the slug is in use. */
  async update(id: number, ownerId: number, changes: SquadRowChanges): Promise<SquadEntity | null | 'slug_taken'> {
    const result = await slugTakenOr(() => this.repo.update({ id, ownerId }, changes as QueryDeepPartialEntity<SquadEntity>));
    if (result === 'slug_taken') return result;
    return result.affected ? this.findOwned(id, ownerId) : null;
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    return ((await this.repo.delete({ id, ownerId })).affected ?? 0) > 0;
  }
}
