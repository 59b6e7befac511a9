import request from 'supertest';
import type { AgentView } from '../agents.service';
import { openRagKit, type RagKit } from '../../rag/test-support/rag-kit';
import type { SquadRun } from './squad-runner';
import type { SquadView } from './squads.service';

let kit: RagKit;
const agents: Record<string, AgentView> = {};

async function createAgent(name: string, goal: string): Promise<AgentView> {
  const res = await request(kit.app).post('/api/agents').set('authorization', kit.alice.auth).send({ data: { name, goal } });
  expect(res.status).toBe(201);
  return (res.body as { data: AgentView }).data;
}

function squadBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    data: {
      name: 'Newsroom',
      agents: [
        { agent_slug: 'researcher', role: 'finds facts' },
        { agent_slug: 'writer', role: 'writes' },
      ],
      tasks: [
        { id: 'facts', description: 'Find three facts about {{context}}', agent_slug: 'researcher', expected_output: 'a list' },
        { id: 'draft', description: 'Write a paragraph from these facts: {{context}}', agent_slug: 'writer', depends_on: ['facts'], output_key: 'article' },
      ],
      ...extra,
    },
  };
}

async function createSquad(extra: Record<string, unknown> = {}): Promise<SquadView> {
  const res = await request(kit.app).post('/api/squads').set('authorization', kit.alice.auth).send(squadBody(extra));
  expect(res.status).toBe(201);
  return (res.body as { data: SquadView }).data;
}

function userMessages(from: number): string[] {
  return kit.llm
    .callsTo('/api/v1/chat')
    .slice(from)
    .map((c) => (c.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'user')?.content ?? '');
}

beforeAll(async () => {
  kit = await openRagKit();
  agents['researcher'] = await createAgent('Researcher', 'Find facts');
  agents['writer'] = await createAgent('Writer', 'Write clearly');
  agents['editor'] = await createAgent('Editor', 'Manage the newsroom');
});

afterAll(async () => {
  await kit?.close();
});

describe('squads (spec 2.18, 4.15)', () => {
  it('refuses a pipeline with a cycle, an unknown dependency, a non-member, or a hierarchical squad without manager', async () => {
    const bad = async (extra: Record<string, unknown>) => {
      const res = await request(kit.app).post('/api/squads').set('authorization', kit.alice.auth).send(squadBody(extra));
      expect(res.status).toBe(400);
      return (res.body as { error: { details: { errors: string[] } } }).error.details.errors;
    };
    expect(
      await bad({
        tasks: [
          { id: 'a', description: 'x', agent_slug: 'writer', depends_on: ['b'] },
          { id: 'b', description: 'y', agent_slug: 'writer', depends_on: ['a'] },
        ],
      }),
    ).toEqual(['tasks: the dependencies form a cycle']);
    expect(await bad({ tasks: [{ id: 'a', description: 'x', agent_slug: 'writer', depends_on: ['ghost'] }] })).toEqual(['tasks.a: depends on unknown task ghost']);
    expect(await bad({ tasks: [{ id: 'a', description: 'x', agent_slug: 'editor' }] })).toEqual(['tasks.a: agent editor is not a member of the squad']);
    expect(
      await bad({
        tasks: [
          { id: 'a', description: 'x', agent_slug: 'writer' },
          { id: 'a', description: 'y', agent_slug: 'writer' },
        ],
      }),
    ).toEqual(['tasks: duplicate task id a']);
    expect(await bad({ process: 'hierarchical' })).toEqual(['manager_agent: is required for a hierarchical squad']);
  });

  it('runs a sequential squad: tasks in order, each reading only what it depends on, on a shared blackboard', async () => {
    const squad = await createSquad();
    expect(squad).toMatchObject({ slug: 'newsroom', process: 'sequential', max_total_iterations: 30, active: true });
    kit.llm.chatReplies.push({ content: 'Fact A. Fact B. Fact C.' }, { content: 'An article built on facts A, B and C.' });
    const before = kit.llm.callsTo('/api/v1/chat').length;
    const res = await request(kit.app)
      .post(`/api/squads/${squad.id}/kickoff`)
      .set('authorization', kit.alice.auth)
      .send({ inputs: { topic: 'lighthouses' } });
    expect(res.status).toBe(200);
    const run = (res.body as { data: SquadRun }).data;
    expect(run).toMatchObject({ status: 'completed', process: 'sequential', iterations_used: 2, max_total_iterations: 30 });
    expect(run.final_output).toBe('Fact A. Fact B. Fact C.\n\nAn article built on facts A, B and C.');
    expect(run.outputs).toEqual({ _input: { topic: 'lighthouses' }, facts: 'Fact A. Fact B. Fact C.', article: 'An article built on facts A, B and C.' });
    expect(run.audit_trail.map((w) => [w.task_id, w.agent_slug, w.key])).toEqual([
      ['_input', '_system', '_input'],
      ['facts', 'researcher', 'facts'],
      ['draft', 'writer', 'article'],
    ]);
    expect(run.audit_trail.every((w) => Number.isInteger(w.timestamp) && w.timestamp > 1_700_000_000)).toBe(true);
    const [first, second] = userMessages(before);
    expect(first).toContain('lighthouses');
    expect(first).toContain('Expected output: a list');
    expect(second).toContain('Fact A. Fact B. Fact C.');
    expect(second).not.toContain('lighthouses');
  });

  it('skips the tasks the iteration budget no longer covers', async () => {
    const squad = await createSquad({ name: 'Tight budget', max_total_iterations: 1 });
    kit.llm.chatReplies.push({ content: 'Only facts.' });
    const run = ((await request(kit.app).post(`/api/squads/${squad.id}/kickoff`).set('authorization', kit.alice.auth).send({ inputs: {} })).body as { data: SquadRun }).data;
    expect(run.tasks.map((t) => [t.id, t.status])).toEqual([
      ['facts', 'completed'],
      ['draft', 'skipped'],
    ]);
    expect(run.final_output).toBe('Only facts.');
  });

  it('runs a hierarchical squad: the manager delegates and its synthesis is the final output', async () => {
    const squad = await createSquad({ name: 'Managed', process: 'hierarchical', manager_agent: agents['editor']!.id });
    kit.llm.chatReplies.push(
      {
        content: '',
        tool_calls: [{ id: 'd1', type: 'function', function: { name: 'delegate', arguments: JSON.stringify({ agent_slug: 'researcher', task: 'Find facts about tides', task_id: 'facts' }) } }],
      },
      { content: 'Tides follow the moon.' },
      { content: 'Summary: tides follow the moon.' },
    );
    const run = (
      (
        await request(kit.app)
          .post(`/api/squads/${squad.id}/kickoff`)
          .set('authorization', kit.alice.auth)
          .send({ data: { inputs: { topic: 'tides' } } })
      ).body as { data: SquadRun }
    ).data;
    expect(run.final_output).toBe('Summary: tides follow the moon.');
    expect(run.outputs['facts']).toBe('Tides follow the moon.');
    expect(run.tasks.map((t) => [t.id, t.status])).toEqual([
      ['facts', 'completed'],
      ['draft', 'skipped'],
    ]);
    expect(run.iterations_used).toBe(3);
  });

  it('is owner-only, and an inactive squad cannot be kicked off', async () => {
    const squad = await createSquad({ name: 'Paused' });
    expect((await request(kit.app).get(`/api/squads/${squad.id}`).set('authorization', kit.bob.auth)).status).toBe(404);
    expect((await request(kit.app).post(`/api/squads/${squad.id}/kickoff`).set('authorization', kit.bob.auth).send({})).status).toBe(404);
    await request(kit.app)
      .put(`/api/squads/${squad.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { active: false } })
      .expect(200);
    expect((await request(kit.app).post(`/api/squads/${squad.id}/kickoff`).set('authorization', kit.alice.auth).send({})).status).toBe(403);
    expect((await request(kit.app).delete(`/api/squads/${squad.id}`).set('authorization', kit.alice.auth)).body).toEqual({ success: true });
    const list = (await request(kit.app).get('/api/squads').set('authorization', kit.alice.auth)).body as { data: SquadView[] };
    expect(list.data.map((s) => s.name)).not.toContain('Paused');
  });

  it('refuses a slug another squad has (409) on update', async () => {
    await createSquad({ name: 'First', slug: 'first-squad' });
    const second = await createSquad({ name: 'Second' });
    const res = await request(kit.app)
      .put(`/api/squads/${second.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { slug: 'first-squad' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { status: 409, details: { errors: ['slug: first-squad is taken'] } } });
  });

  it('answers 400, not 500, for a manager_agent id beyond any record id', async () => {
    const res = await request(kit.app)
      .post('/api/squads')
      .set('authorization', kit.alice.auth)
      .send(squadBody({ name: 'Huge', process: 'hierarchical', manager_agent: 99_999_999_999 }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', details: { errors: [expect.stringContaining('manager_agent')] } } });
  });

  it('holds a hierarchical run to max_total_iterations, the manager’s own model calls included', async () => {
    const squad = await createSquad({ name: 'Managed on a budget', process: 'hierarchical', manager_agent: agents['editor']!.id, max_total_iterations: 3 });
    const delegation = (id: string) => ({
      content: '',
      tool_calls: [{ id, type: 'function' as const, function: { name: 'delegate', arguments: JSON.stringify({ agent_slug: 'researcher', task: 'More facts' }) } }],
    });
    for (let i = 0; i < 6; i++) kit.llm.chatReplies.push(delegation(`d${i}`), { content: `Fact ${i}.` });
    const before = kit.llm.callsTo('/api/v1/chat').length;
    const res = await request(kit.app).post(`/api/squads/${squad.id}/kickoff`).set('authorization', kit.alice.auth).send({ inputs: {} });
    kit.llm.chatReplies.length = 0;
    expect(res.status).toBe(200);
    const run = (res.body as { data: SquadRun }).data;
    const modelCalls = kit.llm.callsTo('/api/v1/chat').length - before;
    expect(modelCalls).toBe(3);
    expect(run.iterations_used).toBe(3);
  });

  it('answers 400, not 500, for a NUL in a squad body', async () => {
    const res = await request(kit.app)
      .post('/api/squads')
      .set('authorization', kit.alice.auth)
      .send(squadBody({ description: 'a\u0000b' }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', details: { errors: ['data.description: must not contain NUL characters or unpaired UTF-16 surrogates'] } } });
  });
});
