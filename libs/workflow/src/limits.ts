/**
 * What one workflow may ask of a processor (issue #13): without bounds a
 * definition of thousands of REST nodes, a wait polling every millisecond or
 * thousands of e-mail nodes could exhaust a processor or send mass mail.
 * Validation (POST /workflows/validate, and every job the processor takes)
 * checks the literal values against these; the processor checks templated
 * values again when it resolves them, against its own configuration
 * (WORKFLOW_MAX_NODES and the rest, README "Limits").
 */
export interface WorkflowLimits {
  /** Nodes in one definition, start, end and decisions included. */
  maxNodes: number;
  /** Outgoing edges of one node. A definition holds at most five edges per allowed node. */
  maxFanOut: number;
  /** email_send_task nodes in one definition. */
  maxEmailNodes: number;
  /** to + cc + bcc of one email_send_task. */
  maxRecipientsPerEmail: number;
  /** Shortest wait_task poll_interval, in seconds. */
  minPollIntervalSeconds: number;
  /** Longest wait_task timeout, in seconds. */
  maxWaitTimeoutSeconds: number;
  /** Longest rest_api_task timeout, in seconds. */
  maxRestTimeoutSeconds: number;
}

export const DEFAULT_WORKFLOW_LIMITS: Readonly<WorkflowLimits> = Object.freeze({
  maxNodes: 200,
  maxFanOut: 20,
  maxEmailNodes: 10,
  maxRecipientsPerEmail: 50,
  minPollIntervalSeconds: 1,
  maxWaitTimeoutSeconds: 3600,
  maxRestTimeoutSeconds: 300,
});

/** Edges per allowed node: enough for any DAG a person draws, bounded for one that is generated. */
export const EDGES_PER_NODE = 5;
