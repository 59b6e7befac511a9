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
  sealedFields: string;
}

export type CredentialRowChanges = Partial<Omit<NewCredentialRow, 'ownerId'>>;

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

  async insert(row: NewCredentialRow): Promise<CredentialEntity> {
    const saved = await this.repo.save(this.repo.create(row));
    return (await this.findOwned(saved.id, row.ownerId)) ?? saved;
  }

  /** Applies the changes to an owned credential; null when there is none. */
  async update(id: number, ownerId: number, changes: CredentialRowChanges): Promise<CredentialEntity | null> {
    const result = await this.repo.update({ id, ownerId }, changes);
    if (!result.affected) return null;
    return this.findOwned(id, ownerId);
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    const result = await this.repo.delete({ id, ownerId });
    return (result.affected ?? 0) > 0;
  }
}
