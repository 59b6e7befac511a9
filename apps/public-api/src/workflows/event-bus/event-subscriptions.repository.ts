import { In, type Repository } from 'typeorm';
import type { PublicApiDatabase } from '../../platform';
import { EventSubscriptionEntity } from './event-bus.entity';

export type SubscriptionSettings = Pick<EventSubscriptionEntity, 'name' | 'eventTypes' | 'filter' | 'inputMapping' | 'isActive'>;
export type NewSubscription = SubscriptionSettings & Pick<EventSubscriptionEntity, 'ownerId' | 'eventSourceId' | 'activityId'>;

/** Event subscriptions (spec 2.17): the owner's bindings of a source to an activity. */
export class EventSubscriptionsRepository {
  private readonly repo: Repository<EventSubscriptionEntity>;

  constructor(private readonly database: PublicApiDatabase) {
    this.repo = database.getRepository(EventSubscriptionEntity);
  }

  insert(subscription: NewSubscription): Promise<EventSubscriptionEntity> {
    return this.repo.save(this.repo.create({ ...subscription, triggerCount: 0 }));
  }

  listOwned(ownerId: number, sourceId?: number): Promise<EventSubscriptionEntity[]> {
    return this.repo.find({ where: sourceId === undefined ? { ownerId } : { ownerId, eventSourceId: sourceId }, order: { id: 'ASC' } });
  }

  findOwned(id: number, ownerId: number): Promise<EventSubscriptionEntity | null> {
    return this.repo.findOne({ where: { id, ownerId } });
  }

  async update(id: number, ownerId: number, settings: Partial<SubscriptionSettings>): Promise<EventSubscriptionEntity | null> {
    // jsonb columns hold any object; TypeORM's deep-partial type cannot say so.
    if (Object.keys(settings).length > 0) await this.repo.update({ id, ownerId }, settings as Parameters<Repository<EventSubscriptionEntity>['update']>[1]);
    return this.findOwned(id, ownerId);
  }

  async delete(id: number, ownerId: number): Promise<boolean> {
    return ((await this.repo.delete({ id, ownerId })).affected ?? 0) > 0;
  }

  /** The active subscriptions of a source, bound to activities of its owner (spec 4.10 ownership). */
  activeForSource(sourceId: number, ownerId: number): Promise<EventSubscriptionEntity[]> {
    return this.repo.find({ where: { eventSourceId: sourceId, ownerId, isActive: true }, order: { id: 'ASC' } });
  }

  /** The active subscriptions of these sources, each bound to its source's owner (spec 4.10 ownership): one query for a dispatch batch. */
  async activeForSources(sources: { id: number; ownerId: number }[]): Promise<Map<number, EventSubscriptionEntity[]>> {
    const bySource = new Map<number, EventSubscriptionEntity[]>(sources.map((s) => [s.id, []]));
    if (sources.length === 0) return bySource;
    const owners = new Map(sources.map((s) => [s.id, s.ownerId]));
    const rows = await this.repo.find({ where: { eventSourceId: In(sources.map((s) => s.id)), isActive: true }, order: { id: 'ASC' } });
    for (const row of rows) if (owners.get(row.eventSourceId) === row.ownerId) bySource.get(row.eventSourceId)?.push(row);
    return bySource;
  }

  /** `countTrigger` for many subscriptions in one statement: `counts` maps a subscription id to its runs started. */
  async countTriggers(counts: Map<number, number>, at: Date): Promise<void> {
    if (counts.size === 0) return;
    await this.database.query(
      `UPDATE event_subscriptions s SET trigger_count = s.trigger_count + c.n, last_triggered_at = $3
         FROM unnest($1::int[], $2::int[]) AS c(id, n) WHERE s.id = c.id`,
      [[...counts.keys()], [...counts.values()], at],
    );
  }

  async countTrigger(id: number, at: Date): Promise<void> {
    await this.database.query('UPDATE event_subscriptions SET trigger_count = trigger_count + 1, last_triggered_at = $2 WHERE id = $1', [id, at]);
  }

  async countActive(ownerId: number): Promise<number> {
    return this.repo.count({ where: { ownerId, isActive: true } });
  }
}
