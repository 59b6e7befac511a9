import { checkContract, executionIdFromJobId, executionKeyOf, type JobMessageV1, WorkflowJobPayload } from '@docflow/contracts';
import { verifyJobUser } from '@docflow/internal-auth';
import { errorMessage, validatePlain, type ValidationResult } from '@docflow/service-kit';
import { parseShieldPolicy, type ShieldPolicy } from '../executors/ai/data-shield/shield-policy';
import {
  buildGraph,
  DEFAULT_WORKFLOW_LIMITS,
  isPlainObject,
  validateAgainstSchema,
  validateDefinition,
  type WorkflowDefinition,
  type WorkflowGraph,
  type WorkflowLimits,
  type WorkflowNode,
} from '@docflow/workflow';
import { doesWork } from '../engine/node-kinds';

/** A workflow job that passed validation, ready for the engine. */
export interface WorkflowJob {
  jobId: string;
  executionId?: number;
  executionKey: string;
  /** The user the run acts for: the job's `user_id`, only when the platform signed it for this job. */
  userId?: number;
  graph: WorkflowGraph;
  inputs: Record<string, unknown>;
  deadline?: { at: Date; text: string };
  resume?: { nodeId: string; payload: Record<string, unknown> };
  /** The activity's data_shield_policy (spec 2.5), passed on to the AI executors. */
  dataShieldPolicy?: ShieldPolicy;
  /** A retry of a failed execution: the nodes that completed there (issue #15). */
  prior?: PriorNode[];
}

/** A node that completed in the execution this one retries. */
export interface PriorNode {
  nodeId: string;
  output: unknown;
  startedAt: Date;
  completedAt: Date;
}

function dateOr(value: unknown, fallback: Date): Date {
  const d = typeof value === 'string' ? new Date(value) : fallback;
  return Number.isNaN(d.getTime()) ? fallback : d;
}

/** The completed nodes a retry carries; entries that are not objects are ignored. */
export function priorNodesOf(completed: Record<string, unknown>, now = new Date()): PriorNode[] {
  const out: PriorNode[] = [];
  for (const [nodeId, raw] of Object.entries(completed)) {
    if (!isPlainObject(raw)) continue;
    const startedAt = dateOr(raw['started_at'], now);
    out.push({ nodeId, output: raw['output'] ?? null, startedAt, completedAt: dateOr(raw['completed_at'], startedAt) });
  }
  return out;
}

/** The payload's contract: its hand-written check (same rules and messages) unless it holds a resume or retry, which class-validator checks. */
function checkPayload(shallow: Record<string, unknown>): ValidationResult<WorkflowJobPayload> {
  const problems = checkContract(WorkflowJobPayload, shallow);
  if (problems === undefined) return validatePlain(WorkflowJobPayload, shallow);
  return problems.length ? { ok: false, errors: problems } : { ok: true, value: shallow as unknown as WorkflowJobPayload };
}

/** Definitions remembered per limits object, by their JSON; at most this many, each at most DEFINITION_KEY_MAX characters. */
const DEFINITION_CACHE_MAX = 256;
const DEFINITION_KEY_MAX = 64 * 1024;
const definitionChecks = new WeakMap<WorkflowLimits, Map<string, readonly string[]>>();

/**
 * validateDefinition's answer, remembered by the definition's JSON: every
 * run of an activity carries the same definition, and checking it was the
 * largest part of the processor's own time on a short workflow. The answer
 * depends only on the definition's JSON value (it came from JSON.parse)
 * and the limits, which are the processor's configuration.
 */
export function definitionProblems(definition: Record<string, unknown>, limits: WorkflowLimits): readonly string[] {
  const key = JSON.stringify(definition);
  if (key.length > DEFINITION_KEY_MAX) return validateDefinition(definition, limits);
  let cache = definitionChecks.get(limits);
  if (!cache) definitionChecks.set(limits, (cache = new Map()));
  const known = cache.get(key);
  if (known) return known;
  const problems = validateDefinition(definition, limits);
  if (cache.size >= DEFINITION_CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, problems);
  return problems;
}

export type ParsedJob = { ok: true; job: WorkflowJob } | { ok: false; executionId?: number; error: string };

export { executionKeyOf };

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * Whether a delivered job's definition, as it came (before validation and
 * normalisation), may hold a node that does work: anything but control and
 * decision nodes, or anything it cannot tell. Only decides whether the cancel
 * read goes out at delivery; the run decides on the validated graph and reads
 * itself when this guessed wrong (WorkflowRun.execute).
 */
export function mayDoWork(msg: JobMessageV1): boolean {
  const definition = (msg.payload as Record<string, unknown>)['workflow_definition'];
  const nodes = isPlainObject(definition) ? definition['nodes'] : undefined;
  if (!Array.isArray(nodes)) return true;
  return nodes.some((node: unknown) => !isPlainObject(node) || !isPlainObject(node['data']) || doesWork(node as unknown as WorkflowNode));
}

/** The execution a delivered job names (its payload's `execution_id`, else its job id), before any validation. */
export function deliveredExecutionId(msg: JobMessageV1): number | undefined {
  return positiveInt((msg.payload as Record<string, unknown>)['execution_id']) ?? executionIdFromJobId(msg.job_id);
}

/**
 * Validates a `task_based_workflow` job: the payload (WorkflowJobPayload),
 * the definition (validateDefinition, every problem listed) and, when the
 * definition has an input_schema, the inputs. Problems come back as one
 * error text for a `failed` result; nothing here throws. A `user_id` without
 * the platform's signature for this job (`jobUserSecret`) refuses the job.
 * The definition is held to the processor's `limits` (README, Limits).
 */
export function parseWorkflowJob(msg: JobMessageV1, jobUserSecret: string, limits: WorkflowLimits = DEFAULT_WORKFLOW_LIMITS): ParsedJob {
  const rawExecutionId = deliveredExecutionId(msg);
  const reject = (error: string): ParsedJob => ({ ok: false, error, ...(rawExecutionId !== undefined ? { executionId: rawExecutionId } : {}) });
  if (msg.job_type !== 'task_based_workflow') return reject(`workflow_queue only takes task_based_workflow jobs, not ${msg.job_type}`);

  // The contract only checks that these fields are objects; validating stand-ins spares
  // class-transformer a deep copy of the whole definition (most of the cost of a small job).
  const raw = msg.payload;
  const opaque = ['workflow_definition', 'inputs', 'data_shield_policy'] as const;
  const shallow: Record<string, unknown> = { ...raw };
  for (const key of opaque) if (isPlainObject(raw[key])) shallow[key] = {};
  const checked = checkPayload(shallow);
  if (!checked.ok) return reject(`Invalid workflow job payload: ${checked.errors.join('; ')}`);
  const payload = checked.value;
  if (payload.user_id !== undefined && !verifyJobUser(jobUserSecret, msg.job_id, payload.user_id, payload.user_signature)) {
    return reject(`Invalid workflow job: user_id ${payload.user_id} is not signed by the platform`);
  }
  payload.workflow_definition = raw['workflow_definition'] as Record<string, unknown>;
  if (isPlainObject(raw['inputs'])) payload.inputs = raw['inputs'];

  // Kept although the public API validated this definition where it stored the execution: workflow_queue
  // takes jobs from any holder of the router's key (spec 4.16 lets callers submit straight to the router),
  // and `limits` are this processor's own configuration, which the public API does not know. A definition
  // that fails here becomes a `failed` result instead of a run that breaks halfway (docs/decisions.md,
  // "Workflow definitions: validated where stored").
  const problems = definitionProblems(payload.workflow_definition, limits);
  if (problems.length) return reject(`Invalid workflow definition: ${problems.join('; ')}`);
  let graph: WorkflowGraph;
  try {
    graph = buildGraph(payload.workflow_definition as unknown as WorkflowDefinition);
  } catch (err) {
    return reject(`Invalid workflow definition: ${errorMessage(err)}`);
  }

  const inputs = isPlainObject(payload.inputs) ? payload.inputs : {};
  const inputSchema = payload.workflow_definition['input_schema'];
  if (inputSchema !== undefined && inputSchema !== null) {
    const inputProblems = validateAgainstSchema(inputSchema, inputs, 'inputs');
    if (inputProblems.length) return reject(`Invalid inputs: ${inputProblems.join('; ')}`);
  }

  const executionId = payload.execution_id ?? executionIdFromJobId(msg.job_id);
  const job: WorkflowJob = {
    jobId: msg.job_id,
    executionKey: executionKeyOf(msg.job_id, executionId),
    graph,
    inputs,
    ...(executionId !== undefined ? { executionId } : {}),
    ...(payload.user_id !== undefined ? { userId: payload.user_id } : {}),
  };
  if (payload.deadline_at !== undefined) job.deadline = { at: new Date(payload.deadline_at), text: payload.deadline_at };
  if (payload.resume) job.resume = { nodeId: payload.resume.node_id, payload: payload.resume.payload };
  if (payload.retry_of) job.prior = priorNodesOf(payload.retry_of.completed_nodes);
  const policy = parseShieldPolicy(raw['data_shield_policy']);
  if (policy) job.dataShieldPolicy = policy;
  return { ok: true, job };
}
