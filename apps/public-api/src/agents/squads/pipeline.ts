import type { SquadMember, SquadTask } from './squad.entity';

/**
 * Spec 2.18: problems of a squad's pipeline (each as a sentence): duplicate
 * task ids, dependencies on unknown tasks, cycles, and tasks assigned to an
 * agent that is not a member.
 */
export function pipelineProblems(members: readonly SquadMember[], tasks: readonly SquadTask[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const t of tasks) {
    if (ids.has(t.id)) problems.push(`tasks: duplicate task id ${t.id}`);
    ids.add(t.id);
  }
  const memberSlugs = new Set(members.map((m) => m.agent_slug));
  for (const t of tasks) {
    if (!memberSlugs.has(t.agent_slug)) problems.push(`tasks.${t.id}: agent ${t.agent_slug} is not a member of the squad`);
    for (const d of t.depends_on) if (!ids.has(d)) problems.push(`tasks.${t.id}: depends on unknown task ${d}`);
  }
  if (problems.length === 0 && topologicalOrder(tasks) === undefined) problems.push('tasks: the dependencies form a cycle');
  return problems;
}

/** Tasks in an order where each comes after everything it depends on (stable: ties keep the given order); undefined on a cycle. */
export function topologicalOrder(tasks: readonly SquadTask[]): SquadTask[] | undefined {
  const done = new Set<string>();
  const order: SquadTask[] = [];
  const left = [...tasks];
  while (left.length > 0) {
    const index = left.findIndex((t) => t.depends_on.every((d) => done.has(d)));
    if (index < 0) return undefined;
    const [next] = left.splice(index, 1);
    if (!next) return undefined;
    order.push(next);
    done.add(next.id);
  }
  return order;
}
