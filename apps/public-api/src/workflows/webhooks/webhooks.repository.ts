import type { PublicApiDatabase } from '../../platform';
import { WebhookEntity } from './webhook.entity';

export type NewWebhookRow = Pick<
  WebhookEntity,
  'ownerId' | 'activityId' | 'name' | 'secretHash' | 'active' | 'eventType' | 'acceptFiles' | 'maxFileSizeMb' | 'allowedMimeTypes' | 'autoEnableRag' | 'allowedOrigins'
>;

export type WebhookRowChanges = Partial<Omit<NewWebhookRow, 'ownerId' | 'activityId' | 'secretHash'>>;

export interface WebhookWithActivity {
  webhook: WebhookEntity;
  activityName: string | null;
}

export class WebhooksRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  private get repo() {
    return this.database.getRepository(WebhookEntity);
  }

  async listOwned(ownerId: number): Promise<WebhookWithActivity[]> {
    const { entities, raw } = await this.repo
      .createQueryBuilder('w')
      .leftJoin('activities', 'a', 'a.id = w.activity_id')
      .addSelect('a.name', 'activity_name')
      .where('w.owner_id = :ownerId', { ownerId })
      .orderBy('w.created_at', 'DESC')
      .addOrderBy('w.id', 'DESC')
      .getRawAndEntities<{ activity_name: string | null }>();
    return entities.map((webhook, i) => ({ webhook, activityName: raw[i]?.activity_name ?? null }));
  }

  findById(id: number): Promise<WebhookEntity | null> {
    return this.repo.findOneBy({ id });
  }

  findOwned(id: number, ownerId: number): Promise<WebhookEntity | null> {
    return this.repo.findOneBy({ id, ownerId });
  }

  insert(row: NewWebhookRow): Promise<WebhookEntity> {
    return this.repo.save(this.repo.create({ ...row, triggerCount: 0 }));
  }

  async update(id: number, ownerId: number, changes: WebhookRowChanges): Promise<WebhookEntity | null> {
    const result = await this.repo.update({ id, ownerId }, changes);
    return result.affected ? this.findOwned(id, ownerId) : null;
  }

  /** The new secret replaces the current one, which stays valid until `graceUntil`. */
  async rotateSecret(id: number, ownerId: number, secretHash: string, graceUntil: Date): Promise<boolean> {
    const result: unknown = await this.database.query(
      `UPDATE webhooks SET previous_secret_hash = secret_hash, previous_secret_expires_at = $3, secret_hash = $4, updated_at = now()
        WHERE id = $1 AND owner_id = $2`,
      [id, ownerId, graceUntil, secretHash],
    );
    return Array.isArray(result) && result[1] === 1;
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    const result = await this.repo.delete({ id, ownerId });
    return (result.affected ?? 0) > 0;
  }

  async countTrigger(id: number): Promise<void> {
    await this.database.query('UPDATE webhooks SET trigger_count = trigger_count + 1, last_triggered_at = now() WHERE id = $1', [id]);
  }
}
