import { randomUUID } from 'node:crypto';
import { paginationMeta, type ListQuery, type PaginationMeta } from '@docflow/list-query';
import { BadRequestError, ConflictError, NotFoundError } from '@docflow/service-kit';
import type { AgentMessageEntity, ConversationEntity } from './conversation.entity';
import type { NewMessage } from './conversations.repository';
import type { ConversationsRepository } from './conversations.repository';
import type { EscalationNotifier } from './escalation/escalation-notifier';
import { awaitsPerson, ESCALATION_STATUSES, ESCALATION_TRANSITIONS, type EscalationStatus, isEscalationStatus, mayMove } from './escalation/escalation-states';

export const CONVERSATION_NOT_FOUND = 'Conversation not found';
/** Spec 8: message listings return 50 by default. */
export const DEFAULT_MESSAGE_LIMIT = 50;

export interface SessionView {
  id: number;
  session_id: string;
  title: string | null;
  message_count: number;
  active: boolean;
  agent_config: Record<string, unknown>;
  agent_id: number | null;
  escalation_status: EscalationStatus;
  escalation_updated_at: string | null;
  escalation_reason: string | null;
  assigned_agent: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MessageView {
  id: number;
  role: string;
  content: string;
  metadata: Record<string, unknown>;
  attachments: Record<string, unknown>[] | null;
  created_at: string;
}

export function toSessionView(c: ConversationEntity): SessionView {
  return {
    id: c.id,
    session_id: c.sessionId,
    title: c.title,
    message_count: c.messageCount,
    active: c.active,
    agent_config: c.agentConfig,
    agent_id: c.agentId,
    escalation_status: c.escalationStatus,
    escalation_updated_at: c.escalationUpdatedAt?.toISOString() ?? null,
    escalation_reason: c.escalationReason,
    assigned_agent: c.assignedAgent,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function toMessageView(m: AgentMessageEntity): MessageView {
  return { id: Number(m.id), role: m.role, content: m.content, metadata: m.metadata, attachments: m.attachments, created_at: m.createdAt.toISOString() };
}

/** Agent conversations (spec 2.11, 4.11): sessions of a user, their messages and escalations. */
export class ConversationsService {
  constructor(
    private readonly repo: ConversationsRepository,
    private readonly notifier?: EscalationNotifier,
  ) {}

  async list(ownerId: number, q: ListQuery): Promise<{ data: SessionView[]; meta: { pagination: PaginationMeta } }> {
    const { rows, total } = await this.repo.listOwned(ownerId, q);
    return { data: rows.map(toSessionView), meta: { pagination: paginationMeta(q.pagination, total) } };
  }

  /** `apiKeyHash`: the agent key a public chat made it with (only that key may use it); null or absent for a signed-in user's own. */
  create(ownerId: number, input: { title: string | null; agentConfig: Record<string, unknown>; agentId: number | null; sessionId?: string; apiKeyHash?: string | null }): Promise<ConversationEntity> {
    return this.repo.insert({ sessionId: input.sessionId ?? randomUUID(), ownerId, agentId: input.agentId, title: input.title, agentConfig: input.agentConfig, apiKeyHash: input.apiKeyHash ?? null });
  }

  /** The session, when `ownerId` (undefined: any owner, for internal callers) owns it. */
  async find(sessionId: string, ownerId: number | undefined): Promise<ConversationEntity> {
    const c = await this.repo.findBySession(sessionId);
    if (!c || (ownerId !== undefined && c.ownerId !== ownerId)) throw new NotFoundError(CONVERSATION_NOT_FOUND);
    return c;
  }

  async messages(sessionId: string, ownerId: number, limit: number): Promise<{ session_id: string; messages: MessageView[] }> {
    const c = await this.find(sessionId, ownerId);
    return { session_id: c.sessionId, messages: (await this.repo.lastMessages(c.id, limit)).map(toMessageView) };
  }

  async add(sessionId: string, ownerId: number | undefined, message: NewMessage): Promise<MessageView> {
    const c = await this.find(sessionId, ownerId);
    const [saved] = await this.repo.append(c.id, [message]);
    if (!saved) throw new Error('message not saved');
    return toMessageView(saved);
  }

  /**
   * Moves the session's escalation (issue 19, item 4), on both escalate routes: an unknown status is 400,
   * a move the states do not allow (or one another request made first) is 409 naming the allowed ones;
   * `assigned` needs an `assigned_agent`. A request or an assignment notifies the person concerned.
   */
  async escalate(sessionId: string, ownerId: number | undefined, e: { escalationStatus: string; escalationReason?: string | null; assignedAgent?: string | null }): Promise<SessionView> {
    const to = e.escalationStatus;
    if (!isEscalationStatus(to)) throw BadRequestError.withErrors('Invalid escalation', [`escalation_status: one of ${ESCALATION_STATUSES.join(', ')}`]);
    const c = await this.find(sessionId, ownerId);
    const from = c.escalationStatus;
    if (!mayMove(from, to)) throw this.refused(from, to);
    if (to === 'assigned' && !(e.assignedAgent ?? '').trim()) throw BadRequestError.withErrors('Invalid escalation', ['assigned_agent: is required to assign a conversation']);
    // Back to the agent, nobody holds it any more; a new request starts without an assignee.
    const assignedAgent = to === 'requested' ? (e.assignedAgent ?? null) : e.assignedAgent;
    const moved = await this.repo.escalate(c.id, from, { ...e, escalationStatus: to, ...(assignedAgent !== undefined ? { assignedAgent } : {}) });
    if (!moved) throw this.refused((await this.find(sessionId, ownerId)).escalationStatus, to);
    if (to === 'requested' || to === 'assigned') this.notifier?.notify(moved);
    return toSessionView(moved);
  }

  private refused(from: EscalationStatus, to: EscalationStatus): ConflictError {
    const allowed = ESCALATION_TRANSITIONS[from];
    return new ConflictError(`A conversation whose escalation is ${from} cannot move to ${to}`, {
      from,
      to,
      allowed: [...allowed],
      errors: [`escalation_status: from ${from}, one of ${allowed.join(', ')}`],
    });
  }

  /** The owner's conversations waiting for or held by a person. */
  async awaitingPerson(ownerId: number): Promise<SessionView[]> {
    return (await this.repo.listAwaitingPerson(ownerId, 200)).map(toSessionView);
  }

  /**
   * The owner replies as a person: an assistant message marked `metadata.human`. Only while a person
   * is asked for or holds it (409 otherwise); a reply to a request assigns it to the replier.
   */
  async replyAsPerson(sessionId: string, owner: { id: number; email: string }, content: string): Promise<MessageView> {
    const c = await this.find(sessionId, owner.id);
    if (!awaitsPerson(c.escalationStatus)) {
      throw new ConflictError(`Reply as a person only to a conversation whose escalation is requested or assigned (it is ${c.escalationStatus})`, { from: c.escalationStatus });
    }
    if (c.escalationStatus === 'requested') await this.escalate(sessionId, owner.id, { escalationStatus: 'assigned', assignedAgent: owner.email });
    const [saved] = await this.repo.append(c.id, [{ role: 'assistant', content, metadata: { human: true, author_id: owner.id }, attachments: null }]);
    if (!saved) throw new Error('message not saved');
    return toMessageView(saved);
  }

  async delete(sessionId: string, ownerId: number): Promise<void> {
    await this.repo.delete((await this.find(sessionId, ownerId)).id);
  }

  history(conversationId: number, limit: number): Promise<AgentMessageEntity[]> {
    return this.repo.lastMessages(conversationId, limit);
  }

  append(conversationId: number, items: NewMessage[]): Promise<AgentMessageEntity[]> {
    return this.repo.append(conversationId, items);
  }
}
