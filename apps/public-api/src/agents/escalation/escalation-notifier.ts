import type { Mailer } from '@docflow/mail';
import { errorMessage, type Logger } from '@docflow/service-kit';
import type { ConversationEntity } from '../conversation.entity';

/** Tells a person that a conversation waits for them (issue 19, item 4). */
export interface EscalationNotifier {
  /** Never throws and does not hold the caller up: a mail that cannot be sent is logged. */
  notify(session: ConversationEntity): void;
}

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/**
 * By e-mail: a request for a person goes to the conversation's owner (the agent's owner for a public
 * chat), an assignment to `assigned_agent` when it is an e-mail address, else to the owner. Other
 * states send nothing.
 */
export function mailEscalationNotifier(deps: {
  mailer: Pick<Mailer, 'send'>;
  ownerEmail(ownerId: number): Promise<string | undefined>;
  /** The console's origin, for the link to the conversation. */
  consoleUrl: string;
  logger: Logger;
}): EscalationNotifier & { idle(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  async function send(session: ConversationEntity): Promise<void> {
    const status = session.escalationStatus;
    if (status !== 'requested' && status !== 'assigned') return;
    const assignee = status === 'assigned' && session.assignedAgent && EMAIL.test(session.assignedAgent) ? session.assignedAgent : undefined;
    const to = assignee ?? (await deps.ownerEmail(session.ownerId));
    if (!to) return;
    const title = session.title ?? session.sessionId;
    const link = `${deps.consoleUrl.replace(/\/$/, '')}/agents?conversation=${encodeURIComponent(session.sessionId)}`;
    await deps.mailer.send({
      to: [to],
      subject: status === 'requested' ? `A conversation asks for a person: ${title.slice(0, 80)}` : `A conversation was assigned to you: ${title.slice(0, 80)}`,
      text:
        (status === 'requested'
          ? 'A visitor of one of your agents asked for a person. Assign the conversation and reply as a person in the console.\n\n'
          : `The conversation was assigned to ${session.assignedAgent ?? 'you'}. Reply as a person in the console, then resolve it.\n\n`) +
        `Conversation: ${title}\nSession: ${session.sessionId}\n${session.escalationReason ? `Reason: ${session.escalationReason}\n` : ''}\n${link}\n`,
    });
  }
  return {
    notify(session) {
      const p = send(session)
        .catch((err: unknown) => deps.logger.warn('escalation notice not sent', { sessionId: session.sessionId, error: errorMessage(err) }))
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    /** Resolves when every notice in flight was sent or given up (for shutdown and tests). */
    async idle() {
      await Promise.all([...pending]);
    },
  };
}
