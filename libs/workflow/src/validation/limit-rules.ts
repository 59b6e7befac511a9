import { EDGES_PER_NODE, type WorkflowLimits } from '../limits';
import { hasTemplate } from '../templates';
import { TASK_NODE_TYPE, type WorkflowEdge, type WorkflowNode } from '../types';

/** Counts checked before anything else, so an oversized definition costs no per-node work. */
export function sizeErrors(rawNodes: readonly unknown[], rawEdges: readonly unknown[], limits: WorkflowLimits): string[] {
  const errors: string[] = [];
  if (rawNodes.length > limits.maxNodes) errors.push(`Workflow has ${rawNodes.length} nodes; at most ${limits.maxNodes} are allowed`);
  const maxEdges = limits.maxNodes * EDGES_PER_NODE;
  if (rawEdges.length > maxEdges) errors.push(`Workflow has ${rawEdges.length} edges; at most ${maxEdges} are allowed`);
  return errors;
}

/** Fan-out per node and e-mail nodes per workflow. */
export function graphLimitErrors(nodes: ReadonlyMap<string, WorkflowNode>, edges: readonly WorkflowEdge[], limits: WorkflowLimits): string[] {
  const errors: string[] = [];
  const fanOut = new Map<string, number>();
  for (const edge of edges) fanOut.set(edge.source, (fanOut.get(edge.source) ?? 0) + 1);
  for (const [id, count] of fanOut) {
    if (count > limits.maxFanOut) errors.push(`Node ${id} has ${count} outgoing edges; at most ${limits.maxFanOut} are allowed`);
  }
  const mails = [...nodes.values()].filter((n) => n.type === TASK_NODE_TYPE && n.data.task_type === 'email_send_task').length;
  if (mails > limits.maxEmailNodes) errors.push(`Workflow has ${mails} email_send_task nodes; at most ${limits.maxEmailNodes} are allowed`);
  return errors;
}

/** A literal number of seconds (numbers and numeric strings; templates are checked at run time). */
function literalSeconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && !hasTemplate(value) && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** Addresses in a literal list (an array, or one plain address); undefined when templated. */
function literalAddressCount(value: unknown): number | undefined {
  if (value === undefined || value === null) return 0;
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'string') return hasTemplate(value) ? undefined : value.trim() === '' ? 0 : 1;
  return undefined;
}

/** The limits on one task node's literal config values. */
export function taskLimitErrors(taskType: string, config: Record<string, unknown>, label: string, limits: WorkflowLimits): string[] {
  const errors: string[] = [];
  const atMostSeconds = (field: string, max: number) => {
    const seconds = literalSeconds(config[field]);
    if (seconds !== undefined && seconds > max) errors.push(`${label}.${field} must be at most ${max} seconds`);
  };
  switch (taskType) {
    case 'wait_task': {
      const poll = literalSeconds(config['poll_interval']);
      if (poll !== undefined && poll > 0 && poll < limits.minPollIntervalSeconds) {
        errors.push(`${label}.poll_interval must be at least ${limits.minPollIntervalSeconds} seconds`);
      }
      atMostSeconds('timeout', limits.maxWaitTimeoutSeconds);
      break;
    }
    case 'rest_api_task':
      atMostSeconds('timeout', limits.maxRestTimeoutSeconds);
      break;
    case 'email_send_task': {
      // Templated lists count as empty here; the run counts them once resolved.
      const total = ['to', 'cc', 'bcc'].reduce((sum, field) => sum + (literalAddressCount(config[field]) ?? 0), 0);
      if (total > limits.maxRecipientsPerEmail) {
        errors.push(`${label}.to, cc and bcc name ${total} recipients; at most ${limits.maxRecipientsPerEmail} are allowed`);
      }
      break;
    }
    default:
      break;
  }
  return errors;
}
