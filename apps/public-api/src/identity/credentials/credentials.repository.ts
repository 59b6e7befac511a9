import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
import type { PublicApiDatabase } from '../../platform';
import { CredentialEntity } from './credential.entity';

/** What GET /credentials may filter and sort (spec 2.1 list conventions). */
export const credentialListSpec = defineListSpec({
  fields: {
    id: { column: '"c"."id"', type: 'integer' },
    name: { column: '"c"."name"', type: 'string' },
    provider: { column: '"c"."provider"', type: 'string' },
    createdAt: { column: '"c"."created_at"', type: 'date' },
    updatedAt: { column: '"c"."updated_at"', type: 'date' },
  },
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
});

export interface NewCredentialRow {
  ownerId: number;
  name: string;
  provider: string;
  description: string | null;
  fieldNames: string[];
}

export type CredentialRowChanges = Partial<Omit<NewCredentialRow, 'ownerId'>> & { sealedFields?: string };

/** One stored sealed value, as key rotation reads it. */
export interface SealedRow {
  id: number;
  ownerId: number;
  sealed: string;
}

/** Every read is scoped to the owner: another user's credential is not found. */
export class CredentialsRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  private get repo() {
    return this.database.getRepository(CredentialEntity);
  }

  async list(ownerId: number, q: ListQuery): Promise<{ rows: CredentialEntity[]; total: number }> {
    const qb = this.repo.createQueryBuilder('c').where('"c"."owner_id" = :ownerId', { ownerId });
    const [rows, total] = await applyListQuery(qb, q).getManyAndCount();
    return { rows, total };
  }

  findOwned(id: number, ownerId: number): Promise<CredentialEntity | null> {
    return this.repo.findOneBy({ id, ownerId });
  }

  /** The sealed fields of an owned credential (the only read that selects them). */
  async sealedFields(id: number, ownerId: number): Promise<string | undefined> {
    const row = await this.repo.createQueryBuilder('c').select('"c"."sealed_fields"', 'sealed').where('"c"."id" = :id AND "c"."owner_id" = :ownerId', { id, ownerId }).getRawOne<{ sealed: string }>();
    return row?.sealed;
  }

  /**
   * Inserts the row with its fields sealed by `seal`, which is given the new row's id (the sealed value is
   * bound to it); one transaction, so no row is ever seen without its value.
   */
  async insert(row: NewCredentialRow, seal: (id: number) => string): Promise<CredentialEntity> {
    const id = await this.database.transaction(async (tx) => {
      const repo = tx.getRepository(CredentialEntity);
      const saved = await repo.save(repo.create({ ...row, sealedFields: '' }));
      await repo.update({ id: saved.id }, { sealedFields: seal(saved.id) });
      return saved.id;
    });
    const inserted = await this.findOwned(id, row.ownerId);
    if (!inserted) throw new Error(`credential ${id} vanished after insert`);
    return inserted;
  }

  /** Applies the changes to an owned credential; null when there is none. */
  async update(id: number, ownerId: number, changes: CredentialRowChanges): Promise<CredentialEntity | null> {
    const result = await this.repo.update({ id, ownerId }, changes);
    if (!result.affected) return null;
    return this.findOwned(id, ownerId);
  }

  /** Up to `limit` sealed values with ids above `afterId`, in id order (key rotation walks the table with it). */
  sealedPage(afterId: number, limit: number): Promise<SealedRow[]> {
    return this.repo
      .createQueryBuilder('c')
      .select(['"c"."id" AS id', '"c"."owner_id" AS "ownerId"', '"c"."sealed_fields" AS sealed'])
      .where('"c"."id" > :afterId', { afterId })
      .orderBy('"c"."id"', 'ASC')
      .limit(limit)
      .getRawMany<SealedRow>();
  }

  /** Replaces a sealed value only if it is still `previous` (a PUT in between wins); whether it was replaced. */
  async replaceSealed(id: number, previous: string, next: string): Promise<boolean> {
    const result = await this.repo.update({ id, sealedFields: previous }, { sealedFields: next });
    return (result.affected ?? 0) > 0;
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    const result = await this.repo.delete({ id, ownerId });
    return (result.affected ?? 0) > 0;
  }
}
