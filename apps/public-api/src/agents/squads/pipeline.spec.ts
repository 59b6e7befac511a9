import { pipelineProblems, topologicalOrder } from './pipeline';
import type { SquadTask } from './squad.entity';

const members = [
  { agent_slug: 'researcher', role: 'research' },
  { agent_slug: 'writer', role: null },
];

function task(id: string, agent: string, depends: string[] = []): SquadTask {
  return { id, description: `do ${id}`, agent_slug: agent, depends_on: depends, output_key: id, expected_output: null };
}

describe('squad pipelines', () => {
  it('orders tasks after what they depend on, keeping the given order otherwise', () => {
    const order = topologicalOrder([task('write', 'writer', ['facts', 'outline']), task('facts', 'researcher'), task('outline', 'writer')]);
    expect(order?.map((t) => t.id)).toEqual(['facts', 'outline', 'write']);
    expect(pipelineProblems(members, [task('a', 'researcher'), task('b', 'writer', ['a'])])).toEqual([]);
  });

  it('names duplicate ids, unknown dependencies, non-members and cycles', () => {
    expect(pipelineProblems(members, [task('a', 'researcher'), task('a', 'writer')])).toEqual(['tasks: duplicate task id a']);
    expect(pipelineProblems(members, [task('a', 'editor', ['ghost'])])).toEqual(['tasks.a: agent editor is not a member of the squad', 'tasks.a: depends on unknown task ghost']);
    expect(pipelineProblems(members, [task('a', 'writer', ['b']), task('b', 'writer', ['a'])])).toEqual(['tasks: the dependencies form a cycle']);
    expect(topologicalOrder([task('a', 'writer', ['a'])])).toBeUndefined();
  });
});
