import { randomUUID } from 'node:crypto';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '@docflow/service-kit';
import type { AgentEntity } from '../agent.entity';
import type { AgentsRepository } from '../agents.repository';
import { slugify } from '../../platform';
import { pipelineProblems } from './pipeline';
import type { SquadEntity } from './squad.entity';
import { runSquad, type SquadRun, type SquadRunDeps } from './squad-runner';
import type { SquadSettings } from './squads.dto';
import type { SquadsRepository } from './squads.repository';

export const SQUAD_NOT_FOUND = 'Squad not found';

export interface SquadView {
  id: number;
  name: string;
  slug: string;
  description: string | null;
  process: 'sequential' | 'hierarchical';
  manager_agent: { id: number } | null;
  agents: SquadEntity['agents'];
  tasks: SquadEntity['tasks'];
  max_total_iterations: number;
  active: boolean;
  owner: { id: number };
  createdAt: string;
  updatedAt: string;
}

function view(s: SquadEntity): SquadView {
  return {
    id: s.id,
    name: s.name,
    slug: s.slug,
    description: s.description,
    process: s.process,
    manager_agent: s.managerAgentId === null ? null : { id: s.managerAgentId },
    agents: s.agents,
    tasks: s.tasks,
    max_total_iterations: s.maxTotalIterations,
    active: s.active,
    owner: { id: s.ownerId },
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

function slugTaken(slug: string): ConflictError {
  return new ConflictError(`The slug ${slug} is taken`, { errors: [`slug: ${slug} is taken`] });
}

/** Squads (spec 2.18, 4.15): the owner's teams of agents, validated on every write, kicked off by id. */
export class SquadsService {
  constructor(
    private readonly repo: SquadsRepository,
    private readonly agents: AgentsRepository,
    private readonly run: SquadRunDeps,
  ) {}

  /** An agent the owner may put in a squad: their own or a system agent. */
  private async usableAgent(ownerId: number, ref: number | string): Promise<AgentEntity | undefined> {
    const a = typeof ref === 'number' ? await this.agents.findById(ref) : await this.agents.findBySlug(ref);
    return a && (a.ownerId === null || a.ownerId === ownerId) ? a : undefined;
  }

  /** Checks the whole squad as it would be stored; returns the manager's id. */
  private async check(ownerId: number, s: Pick<SquadEntity, 'process' | 'agents' | 'tasks'>, managerRef: number | string | null): Promise<number | null> {
    const errors = pipelineProblems(s.agents, s.tasks);
    for (const m of s.agents) if (!(await this.usableAgent(ownerId, m.agent_slug))) errors.push(`agents: no agent ${m.agent_slug} of yours`);
    let managerId: number | null = null;
    if (managerRef !== null) {
      const manager = await this.usableAgent(ownerId, managerRef);
      if (!manager) errors.push(`manager_agent: no agent ${String(managerRef)} of yours`);
      else managerId = manager.id;
    }
    if (s.process === 'hierarchical' && managerRef === null) errors.push('manager_agent: is required for a hierarchical squad');
    if (errors.length > 0) throw BadRequestError.withErrors('Invalid squad', errors);
    return managerId;
  }

  private async owned(ownerId: number, id: number): Promise<SquadEntity> {
    const s = await this.repo.findOwned(id, ownerId);
    if (!s) throw new NotFoundError(SQUAD_NOT_FOUND);
    return s;
  }

  async list(ownerId: number): Promise<SquadView[]> {
    return (await this.repo.listOwned(ownerId)).map(view);
  }

  async get(ownerId: number, id: number): Promise<SquadView> {
    return view(await this.owned(ownerId, id));
  }

  async create(ownerId: number, s: SquadSettings & { name: string }): Promise<SquadView> {
    const shape = { process: s.process ?? 'sequential', agents: s.agents ?? [], tasks: s.tasks ?? [] };
    const managerAgentId = await this.check(ownerId, shape, s.managerAgent ?? null);
    const first = s.slug ?? slugify(s.name, 'squad');
    for (let attempt = 0; ; attempt++) {
      const slug = attempt === 0 ? first : `${first}-${randomUUID().slice(0, 8)}`;
      const saved = await this.repo.insert({
        ownerId,
        name: s.name,
        slug,
        description: s.description ?? null,
        ...shape,
        managerAgentId,
        maxTotalIterations: s.maxTotalIterations ?? 30,
        active: s.active ?? true,
      });
      if (saved !== 'slug_taken') return view(saved);
      if (s.slug !== undefined || attempt >= 3) throw slugTaken(slug);
    }
  }

  async update(ownerId: number, id: number, s: SquadSettings): Promise<SquadView> {
    const current = await this.owned(ownerId, id);
    const shape = { process: s.process ?? current.process, agents: s.agents ?? current.agents, tasks: s.tasks ?? current.tasks };
    const managerAgentId = await this.check(ownerId, shape, s.managerAgent !== undefined ? s.managerAgent : current.managerAgentId);
    const { managerAgent: _m, ...rest } = s;
    const updated = await this.repo.update(id, ownerId, { ...rest, ...shape, managerAgentId });
    if (updated === 'slug_taken') throw slugTaken(s.slug ?? '');
    if (!updated) throw new NotFoundError(SQUAD_NOT_FOUND);
    return view(updated);
  }

  async delete(ownerId: number, id: number): Promise<void> {
    if (!(await this.repo.delete(id, ownerId))) throw new NotFoundError(SQUAD_NOT_FOUND);
  }

  /** Runs the squad now and answers with its outcome; inactive squads cannot be kicked off (403). */
  async kickoff(ownerId: number, id: number, inputs: Record<string, unknown>): Promise<SquadRun> {
    const squad = await this.owned(ownerId, id);
    if (!squad.active) throw new ForbiddenError('Inactive squads cannot be kicked off');
    const members = new Map<string, AgentEntity>();
    for (const m of squad.agents) {
      const agent = await this.usableAgent(ownerId, m.agent_slug);
      if (agent) members.set(m.agent_slug, agent);
    }
    const manager = squad.process === 'hierarchical' && squad.managerAgentId !== null ? ((await this.usableAgent(ownerId, squad.managerAgentId)) ?? null) : null;
    if (squad.process === 'hierarchical' && !manager) throw new BadRequestError('The squad’s manager agent no longer exists', { errors: ['manager_agent: set one of your agents'] });
    return runSquad(this.run, squad, members, manager, inputs, ownerId);
  }
}
