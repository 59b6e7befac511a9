import { BadRequestError, isPlainObject, parseBody, Satisfies } from '@docflow/service-kit';
import { booleanProblems, integerProblems, isRecordId, nullableTextProblems, requestFields, required, slugProblems } from '../../platform';
import type { FieldProblems } from '../../platform';
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

const TASK_ID = /^[A-Za-z0-9_.-]{1,100}$/;

/** A member: `{agent_slug, role?}` or the slug alone. */
function memberSlug(m: unknown): unknown {
  return isPlainObject(m) ? m['agent_slug'] : typeof m === 'string' ? m : undefined;
}

const membersProblems: FieldProblems = (value) => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 20) return ['agents: must be an array of at most 20 {agent_slug, role}'];
  return value.flatMap((m: unknown, i) => {
    const slug = memberSlug(m);
    const role = isPlainObject(m) ? m['role'] : undefined;
    if (typeof slug !== 'string' || slug === '') return [`agents[${i}]: needs an agent_slug`];
    return role !== undefined && role !== null && typeof role !== 'string' ? [`agents[${i}].role: must be a string`] : [];
  });
};

function taskProblems(t: unknown): string[] {
  if (!isPlainObject(t)) return ['must be an object'];
  const { id, description, agent_slug, depends_on, output_key, expected_output } = t;
  const problems: string[] = [];
  if (typeof id !== 'string' || !TASK_ID.test(id)) problems.push('id is required (letters, digits, _ . -)');
  if (typeof description !== 'string' || description.trim() === '') problems.push('description is required');
  if (typeof agent_slug !== 'string' || agent_slug === '') problems.push('agent_slug is required');
  if (depends_on !== undefined && (!Array.isArray(depends_on) || depends_on.some((d) => typeof d !== 'string'))) problems.push('depends_on must be an array of task ids');
  if (output_key !== undefined && output_key !== null && (typeof output_key !== 'string' || !TASK_ID.test(output_key))) problems.push('output_key must be a key (letters, digits, _ . -)');
  if (expected_output !== undefined && expected_output !== null && typeof expected_output !== 'string') problems.push('expected_output must be a string');
  return problems;
}

const tasksProblems: FieldProblems = (value) => {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 50) return ['tasks: must be an array of at most 50 task objects'];
  return value.flatMap((t: unknown, i) => taskProblems(t).map((p) => `tasks[${i}]: ${p}`));
};

/** The agent a `manager_agent` names: an id or slug, or `{id}` / `{slug}`. */
function managerRef(value: unknown): unknown {
  return isPlainObject(value) ? (value['id'] ?? value['slug']) : value;
}

const managerProblems: FieldProblems = (value) => {
  if (value === undefined) return [];
  const ref = managerRef(value);
  return ref === null || isRecordId(ref) || (typeof ref === 'string' && ref !== '') ? [] : ['manager_agent: an agent id or slug'];
};

const nameProblems: FieldProblems = (value) =>
  value === undefined || (typeof value === 'string' && value.trim() !== '' && value.length <= 255) ? [] : ['name: must be a non-empty string of at most 255 characters'];

/** PUT /squads/{id}: any of the 2.18 fields, each checked on its own. */
export class UpdateSquadRequest {
  @Satisfies(nameProblems)
  name?: string;

  @Satisfies(slugProblems('slug: lower-case letters and digits in dash-separated words'))
  slug?: string | null;

  @Satisfies(nullableTextProblems('description', Number.MAX_SAFE_INTEGER))
  description?: string | null;

  @Satisfies((value) => (value === undefined || value === 'sequential' || value === 'hierarchical' ? [] : ['process: sequential or hierarchical']))
  process?: 'sequential' | 'hierarchical';

  @Satisfies(managerProblems)
  manager_agent?: unknown;

  @Satisfies(membersProblems)
  agents?: unknown[];

  @Satisfies(tasksProblems)
  tasks?: Record<string, unknown>[];

  @Satisfies(integerProblems(1, 500, 'max_total_iterations: an integer from 1 to 500'))
  max_total_iterations?: number;

  @Satisfies(booleanProblems('active'))
  active?: boolean;
}

/** POST /squads: the same fields, `name` required. */
export class CreateSquadRequest extends UpdateSquadRequest {
  @Satisfies(required('name', nameProblems))
  declare name: string;
}

/** The settings a valid request gives (a null slug is none given). */
function toSettings(request: UpdateSquadRequest): SquadSettings {
  const out: SquadSettings = {};
  if (request.name !== undefined) out.name = request.name.trim();
  if (typeof request.slug === 'string') out.slug = request.slug;
  if (request.description !== undefined) out.description = request.description;
  if (request.process !== undefined) out.process = request.process;
  if (request.manager_agent !== undefined) out.managerAgent = managerRef(request.manager_agent) as number | string | null;
  if (request.agents !== undefined)
    out.agents = request.agents.map((m) => {
      const role = isPlainObject(m) ? m['role'] : undefined;
      return { agent_slug: memberSlug(m) as string, role: typeof role === 'string' ? role : null };
    });
  if (request.tasks !== undefined)
    out.tasks = request.tasks.map((t) => ({
      id: t['id'] as string,
      description: t['description'] as string,
      agent_slug: t['agent_slug'] as string,
      depends_on: (t['depends_on'] as string[] | undefined) ?? [],
      output_key: (t['output_key'] as string | undefined | null) ?? (t['id'] as string),
      expected_output: (t['expected_output'] as string | undefined | null) ?? null,
    }));
  if (request.max_total_iterations !== undefined) out.maxTotalIterations = request.max_total_iterations;
  if (request.active !== undefined) out.active = request.active;
  return out;
}

const INVALID_SQUAD = 'Invalid squad';

/** POST /squads: `{data: {name (required), ...2.18 fields}}` or flat, read with parseBody (400 `Invalid squad`). */
export function parseCreateSquad(body: unknown): SquadSettings & { name: string } {
  const settings = toSettings(parseBody(CreateSquadRequest, requestFields(body), { message: INVALID_SQUAD }));
  return { ...settings, name: settings.name as string };
}

/** PUT /squads/{id}: any of the fields; at least one. */
export function parseUpdateSquad(body: unknown): SquadSettings {
  const settings = toSettings(parseBody(UpdateSquadRequest, requestFields(body), { message: INVALID_SQUAD }));
  if (Object.keys(settings).length === 0) throw BadRequestError.withErrors(INVALID_SQUAD, ['give at least one squad field']);
  return settings;
}

/** POST /squads/{id}/kickoff: `{inputs}`, an object (default `{}`). */
export class KickoffRequest {
  @Satisfies((value) => (value === undefined || value === null || isPlainObject(value) ? [] : ['inputs: must be an object']))
  inputs?: Record<string, unknown> | null;
}

/** POST /squads/{id}/kickoff: `{inputs}` (wrapped or flat), read with parseBody (400 `Invalid kickoff`). */
export function parseKickoff(body: unknown): Record<string, unknown> {
  return parseBody(KickoffRequest, requestFields(body), { message: 'Invalid kickoff' }).inputs ?? {};
}
