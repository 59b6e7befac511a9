import { applyListQuery, defineListSpec, type ListQuery } from '@docflow/list-query';
import { uniqueViolation } from '@docflow/persistence';
import type { PublicApiDatabase } from '../platform';
import { AgentMessageEntity, ConversationEntity } from './conversation.entity';
import type { EscalationStatus } from './escalation/escalation-states';

export const conversationListSpec = defineListSpec({
  fields: {
    id: { column: '"c"."id"', type: 'integer' },
    agent_id: { column: '"c"."agent_id"', type: 'integer' },
    title: { column: '"c"."title"', type: 'string' },
    active: { column: '"c"."active"', type: 'boolean' },
    escalation_status: { column: '"c"."escalation_status"', type: 'string' },
    createdAt: { column: '"c"."created_at"', type: 'date' },
    updatedAt: { column: '"c"."updated_at"', type: 'date' },
  },
  defaultSort: [{ field: 'updatedAt', direction: 'desc' }],
});

export interface NewMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
  metadata: Record<string, unknown>;
  attachments: Record<string, unknown>[] | null;
}

export interface Escalation {
  escalationStatus: EscalationStatus;
  escalationReason?: string | null;
  assignedAgent?: string | null;
}

export class ConversationsRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  private get sessions() {
    return this.database.getRepository(ConversationEntity);
  }

  private get messages() {
    return this.database.getRepository(AgentMessageEntity);
  }

  async listOwned(ownerId: number, q: ListQuery): Promise<{ rows: ConversationEntity[]; total: number }> {
    const qb = this.sessions.createQueryBuilder('c').where('"c"."owner_id" = :ownerId', { ownerId });
    const [rows, total] = await applyListQuery(qb, q).getManyAndCount();
    return { rows, total };
  }

  findBySession(sessionId: string): Promise<ConversationEntity | null> {
    return this.sessions.findOneBy({ sessionId });
  }

  /** The new session; when its session_id was taken meanwhile (two first turns at once), the one that was. */
  async insert(row: Pick<ConversationEntity, 'sessionId' | 'ownerId' | 'agentId' | 'title' | 'agentConfig' | 'apiKeyHash'>): Promise<ConversationEntity> {
    try {
      return await this.sessions.save(this.sessions.create({ ...row, active: true, messageCount: 0, escalationStatus: 'none', escalationUpdatedAt: null }));
    } catch (err) {
      const existing = uniqueViolation(err) !== undefined ? await this.findBySession(row.sessionId) : null;
      if (existing) return existing;
      throw err;
    }
  }

  /** The last `limit` messages, oldest first. */
  async lastMessages(conversationId: number, limit: number): Promise<AgentMessageEntity[]> {
    const rows = await this.messages.find({ where: { conversationId }, order: { id: 'DESC' }, take: limit });
    return rows.reverse();
  }

  /** Appends messages and counts them on the session, in one transaction. */
  async append(conversationId: number, items: NewMessage[]): Promise<AgentMessageEntity[]> {
    return this.database.transaction(async (m) => {
      const saved = await m.getRepository(AgentMessageEntity).save(items.map((i) => m.getRepository(AgentMessageEntity).create({ conversationId, ...i })));
      await m.query('UPDATE agent_conversations SET message_count = message_count + $2, updated_at = now() WHERE id = $1', [conversationId, items.length]);
      return saved;
    });
  }

  /**
   * Moves the session from `from` to the escalation in one compare-and-set: the updated session, or
   * undefined when its status is no longer `from` (another request moved it first).
   */
  async escalate(conversationId: number, from: EscalationStatus, e: Escalation): Promise<ConversationEntity | undefined> {
    const result = await this.sessions.update(
      { id: conversationId, escalationStatus: from },
      {
        escalationStatus: e.escalationStatus,
        escalationUpdatedAt: new Date(),
        ...(e.escalationReason !== undefined ? { escalationReason: e.escalationReason } : {}),
        ...(e.assignedAgent !== undefined ? { assignedAgent: e.assignedAgent } : {}),
      },
    );
    if (!result.affected) return undefined;
    return (await this.sessions.findOneBy({ id: conversationId })) ?? undefined;
  }

  /** The owner's sessions waiting for or held by a person, the longest-waiting first. */
  listAwaitingPerson(ownerId: number, limit: number): Promise<ConversationEntity[]> {
    return this.sessions.find({
      where: [
        { ownerId, escalationStatus: 'requested' },
        { ownerId, escalationStatus: 'assigned' },
      ],
      order: { escalationUpdatedAt: 'ASC', id: 'ASC' },
      take: limit,
    });
  }

  async delete(conversationId: number): Promise<void> {
    await this.sessions.delete({ id: conversationId });
  }
}
