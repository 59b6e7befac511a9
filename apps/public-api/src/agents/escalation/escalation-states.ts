/**
 * A conversation's hand-off to a person (issue 19, item 4; 2.11 leaves the values open):
 * none → requested → assigned → resolved, or dismissed from requested or assigned. An assigned
 * conversation may be reassigned; a resolved or dismissed one may be requested again.
 */
export const ESCALATION_STATUSES = ['none', 'requested', 'assigned', 'resolved', 'dismissed'] as const;
export type EscalationStatus = (typeof ESCALATION_STATUSES)[number];

export const ESCALATION_TRANSITIONS: Readonly<Record<EscalationStatus, readonly EscalationStatus[]>> = {
  none: ['requested'],
  requested: ['assigned', 'dismissed'],
  assigned: ['assigned', 'resolved', 'dismissed'],
  resolved: ['requested'],
  dismissed: ['requested'],
};

export function isEscalationStatus(value: string): value is EscalationStatus {
  return (ESCALATION_STATUSES as readonly string[]).includes(value);
}

export function mayMove(from: EscalationStatus, to: EscalationStatus): boolean {
  return ESCALATION_TRANSITIONS[from].includes(to);
}

/** While a person owns the conversation, the agent does not answer it. */
export function awaitsPerson(status: EscalationStatus): boolean {
  return status === 'requested' || status === 'assigned';
}

/** What a visitor is told while a person has the conversation and has not replied yet. */
export const HOLD_MESSAGE = 'A person from our team will reply here. Send your next message in this conversation to see their answer.';
