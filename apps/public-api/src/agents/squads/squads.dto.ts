import { BadRequestError } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import { requestFields } from '../../platform';
import { SLUG_MAX, SLUG_PATTERN } from '../../platform';
import type { SquadMember, SquadTask } from './squad.entity';

export interface SquadSettings {
  name?: string;
  slug?: string;
  description?: string | null;
  process?: 'sequential' | 'hierarchical';
  /** An agent id, or the slug of one. */
  managerAgent?: number | string | null;
  agents?: SquadMember[];
  tasks?: SquadTask[];
  maxTotalIterations?: number;
  active?: boolean;
}

/** Record ids are 32-bit integers; a larger number names no agent (and would fail in the database). */
const MAX_ID = 2_147_483_647;
const TASK_ID = /^[A-Za-z0-9_.-]{1,100}$/;

function readMembers(value: unknown, errors: string[]): SquadMember[] | undefined {
  if (!Array.isArray(value) || value.length > 20) {
    errors.push('agents: must be an array of at most 20 {agent_slug, role}');
    return undefined;
  }
  const out: SquadMember[] = [];
  for (const [i, m] of value.entries()) {
    const slug = isPlainObject(m) ? m['agent_slug'] : typeof m === 'string' ? m : undefined;
    const role = isPlainObject(m) ? m['role'] : undefined;
    if (typeof slug !== 'string' || slug === '') errors.push(`agents[${i}]: needs an agent_slug`);
    else if (role !== undefined && role !== null && typeof role !== 'string') errors.push(`agents[${i}].role: must be a string`);
    else out.push({ agent_slug: slug, role: typeof role === 'string' ? role : null });
  }
  return out;
}

function readTasks(value: unknown, errors: string[]): SquadTask[] | undefined {
  if (!Array.isArray(value) || value.length > 50) {
    errors.push('tasks: must be an array of at most 50 task objects');
    return undefined;
  }
  const out: SquadTask[] = [];
  for (const [i, t] of value.entries()) {
    if (!isPlainObject(t)) {
      errors.push(`tasks[${i}]: must be an object`);
      continue;
    }
    const { id, description, agent_slug, depends_on, output_key, expected_output } = t;
    const problems: string[] = [];
    if (typeof id !== 'string' || !TASK_ID.test(id)) problems.push('id is required (letters, digits, _ . -)');
    if (typeof description !== 'string' || description.trim() === '') problems.push('description is required');
    if (typeof agent_slug !== 'string' || agent_slug === '') problems.push('agent_slug is required');
    if (depends_on !== undefined && (!Array.isArray(depends_on) || depends_on.some((d) => typeof d !== 'string'))) problems.push('depends_on must be an array of task ids');
    if (output_key !== undefined && output_key !== null && (typeof output_key !== 'string' || !TASK_ID.test(output_key))) problems.push('output_key must be a key (letters, digits, _ . -)');
    if (expected_output !== undefined && expected_output !== null && typeof expected_output !== 'string') problems.push('expected_output must be a string');
    if (problems.length > 0) {
      errors.push(...problems.map((p) => `tasks[${i}]: ${p}`));
      continue;
    }
    out.push({
      id: id as string,
      description: description as string,
      agent_slug: agent_slug as string,
      depends_on: (depends_on as string[] | undefined) ?? [],
      output_key: (output_key as string | undefined | null) ?? (id as string),
      expected_output: (expected_output as string | undefined | null) ?? null,
    });
  }
  return out;
}

function readSettings(fields: Record<string, unknown>, errors: string[]): SquadSettings {
  const out: SquadSettings = {};
  const { name, slug, description, process, manager_agent, agents, tasks, max_total_iterations, active } = fields;
  if (name !== undefined) {
    if (typeof name !== 'string' || name.trim() === '' || name.length > 255) errors.push('name: must be a non-empty string of at most 255 characters');
    else out.name = name.trim();
  }
  if (slug !== undefined && slug !== null) {
    if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug) || slug.length > SLUG_MAX) errors.push('slug: lower-case letters and digits in dash-separated words');
    else out.slug = slug;
  }
  if (description !== undefined) {
    if (description !== null && typeof description !== 'string') errors.push('description: must be a string');
    else out.description = description;
  }
  if (process !== undefined) {
    if (process !== 'sequential' && process !== 'hierarchical') errors.push('process: sequential or hierarchical');
    else out.process = process;
  }
  if (manager_agent !== undefined) {
    const ref = isPlainObject(manager_agent) ? (manager_agent['id'] ?? manager_agent['slug']) : manager_agent;
    if (ref !== null && !(typeof ref === 'number' && Number.isInteger(ref) && ref > 0 && ref <= MAX_ID) && !(typeof ref === 'string' && ref !== '')) errors.push('manager_agent: an agent id or slug');
    else out.managerAgent = ref as number | string | null;
  }
  if (agents !== undefined) {
    const members = readMembers(agents, errors);
    if (members) out.agents = members;
  }
  if (tasks !== undefined) {
    const list = readTasks(tasks, errors);
    if (list) out.tasks = list;
  }
  if (max_total_iterations !== undefined) {
    if (typeof max_total_iterations !== 'number' || !Number.isInteger(max_total_iterations) || max_total_iterations < 1 || max_total_iterations > 500)
      errors.push('max_total_iterations: an integer from 1 to 500');
    else out.maxTotalIterations = max_total_iterations;
  }
  if (active !== undefined) {
    if (typeof active !== 'boolean') errors.push('active: must be true or false');
    else out.active = active;
  }
  return out;
}

/** POST /squads: `{data: {name (required), ...2.18 fields}}` or flat. */
export function parseCreateSquad(body: unknown): SquadSettings & { name: string } {
  const fields = requestFields(body);
  const errors: string[] = [];
  const settings = readSettings(fields, errors);
  if (fields['name'] === undefined) errors.push('name: is required');
  if (errors.length > 0 || settings.name === undefined) throw BadRequestError.withErrors('Invalid squad', errors);
  return { ...settings, name: settings.name };
}

export function parseUpdateSquad(body: unknown): SquadSettings {
  const fields = requestFields(body);
  const errors: string[] = [];
  const settings = readSettings(fields, errors);
  if (errors.length === 0 && Object.keys(settings).length === 0) errors.push('give at least one squad field');
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid squad', errors);
  return settings;
}

/** POST /squads/{id}/kickoff: `{inputs}` (wrapped or flat); the inputs are an object. */
export function parseKickoff(body: unknown): Record<string, unknown> {
  const fields = requestFields(body);
  const inputs = fields['inputs'] ?? {};
  if (!isPlainObject(inputs)) throw BadRequestError.withErrors('Invalid kickoff', ['inputs: must be an object']);
  return inputs;
}
