import request from 'supertest';
import { createMailer } from '@docflow/mail';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { LoopbackSmtp } from '@docflow/testing';
import type express from 'express';
import { buildPublicApi } from '../../app';
import { openRagKit, type RagKit, SERVICE_KEY } from '../../rag/test-support/rag-kit';
import type { AgentRun } from '../agent-runner';
import type { AgentView } from '../agents.service';
import type { MessageView, SessionView } from '../conversations.service';
import { ESCALATION_STATUSES, ESCALATION_TRANSITIONS, HOLD_MESSAGE } from './escalation-states';

/** Human hand-off (issue 19, item 4): every transition on both escalate routes, the held public chat, the reply as a person, the notices by e-mail. */
let kit: RagKit;
let smtp: LoopbackSmtp;
let app: express.Express;
let agent: AgentView;

type ChatAnswer = AgentRun & { session_id: string; escalation_status: string };

const escalate = (sessionId: string, body: Record<string, unknown>, via: 'owner' | 'internal' = 'owner', auth = kit.alice.auth) =>
  via === 'owner'
    ? request(app).put(`/api/agent-conversations/${sessionId}/escalate`).set('authorization', auth).send(body)
    : request(app).put(`/api/internal/agent-conversations/${sessionId}/escalate`).set('X-Service-Key', SERVICE_KEY).send(body);

/** The mail about this session that says `what`, once it arrived (the notices of other tests' sessions arrive meanwhile). */
async function mailAbout(sessionId: string, what: string): Promise<{ to: string[]; raw: string }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    // Quoted-printable wraps long lines with "=\r\n"; unwrapped, the session id reads whole.
    const found = smtp.received.find((m) => m.raw.replace(/=\r?\n/g, '').includes(sessionId) && m.raw.includes(what));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no mail "${what}" about ${sessionId}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function session(): Promise<string> {
  const res = await request(app)
    .post('/api/agent-conversations')
    .set('authorization', kit.alice.auth)
    .send({ data: { title: 'Hand-off case', agent_id: agent.id } });
  expect(res.status).toBe(201);
  expect((res.body as { data: SessionView }).data.escalation_status).toBe('none');
  return (res.body as { data: SessionView }).data.session_id;
}

async function status(sessionId: string): Promise<SessionView> {
  const list = (await request(app).get('/api/agent-conversations').set('authorization', kit.alice.auth)).body as { data: SessionView[] };
  return list.data.find((s) => s.session_id === sessionId)!;
}

/** A session brought to `target` through allowed moves. */
async function sessionAt(target: (typeof ESCALATION_STATUSES)[number]): Promise<string> {
  const id = await session();
  const path: Record<string, Record<string, unknown>[]> = {
    none: [],
    requested: [{ escalation_status: 'requested' }],
    assigned: [{ escalation_status: 'requested' }, { escalation_status: 'assigned', assigned_agent: 'desk@docflow.test' }],
    resolved: [{ escalation_status: 'requested' }, { escalation_status: 'assigned', assigned_agent: 'desk@docflow.test' }, { escalation_status: 'resolved' }],
    dismissed: [{ escalation_status: 'requested' }, { escalation_status: 'dismissed' }],
  };
  for (const step of path[target]!) expect((await escalate(id, step)).status).toBe(200);
  return id;
}

beforeAll(async () => {
  kit = await openRagKit();
  smtp = await LoopbackSmtp.start();
  app = buildPublicApi({
    config: kit.config,
    logger: silentLogger,
    metrics: new Metrics('public-api'),
    database: kit.bed.database,
    mailer: createMailer({ smtpUrl: smtp.url, outboxDir: kit.bed.outboxDir, from: 'Docflow <no-reply@docflow.local>', logger: silentLogger }),
    health: [],
    broker: kit.broker,
  }).app;
  const res = await request(app)
    .post('/api/agents')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'Support bot', conversational: true } });
  agent = (res.body as { data: AgentView }).data;
});

afterAll(async () => {
  await smtp?.stop();
  await kit?.close();
});

describe('escalation states', () => {
  const every = ESCALATION_STATUSES.flatMap((from) => ESCALATION_STATUSES.filter((to) => to !== 'none' || from !== 'none').map((to) => [from, to] as const));

  it.each(every)('%s → %s is allowed exactly when the states say so, on the owner’s and the internal route', async (from, to) => {
    const allowed = ESCALATION_TRANSITIONS[from].includes(to);
    for (const via of ['owner', 'internal'] as const) {
      const id = await sessionAt(from);
      const res = await escalate(id, { escalation_status: to, ...(to === 'assigned' ? { assigned_agent: 'other@docflow.test' } : {}) }, via);
      if (allowed) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ success: true });
        expect((await status(id)).escalation_status).toBe(to);
      } else {
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ error: { status: 409, details: { from, to, allowed: [...ESCALATION_TRANSITIONS[from]] } } });
        expect((await status(id)).escalation_status).toBe(from);
      }
    }
  });

  it('refuses an unknown status (400), an assignment without assignee (400), no service key (401) and another owner (404)', async () => {
    const id = await session();
    expect((await escalate(id, { escalation_status: 'escalated' })).status).toBe(400);
    expect((await escalate(id, { escalation_status: 'requested' })).status).toBe(200);
    expect((await escalate(id, { escalation_status: 'assigned' })).status).toBe(400);
    expect((await request(app).put(`/api/internal/agent-conversations/${id}/escalate`).send({ escalation_status: 'dismissed' })).status).toBe(401);
    expect((await request(app).put(`/api/internal/agent-conversations/${id}/escalate`).set('X-Service-Key', 'wrong').send({ escalation_status: 'dismissed' })).status).toBe(401);
    expect((await escalate(id, { escalation_status: 'dismissed' }, 'owner', kit.bob.auth)).status).toBe(404);
    expect((await status(id)).escalation_status).toBe('requested');
  });
});

describe('human hand-off of a public conversation', () => {
  it('holds the agent, tells the visitor a person will reply, notifies by e-mail, carries the person’s reply and resolves', async () => {
    kit.llm.chatReplies.push({ content: 'I am the bot.' });
    const first = await request(app).post(`/api/agents/${agent.slug}/public-chat`).set('X-Agent-Key', agent.api_key!).send({ query: 'My order never came' });
    expect(first.status).toBe(200);
    const sessionId = (first.body as ChatAnswer).session_id;
    expect(first.body).toMatchObject({ answer: 'I am the bot.', escalation_status: 'none' });

    // The widget's back end asks for a person with the service key; the agent's owner is mailed.
    expect((await escalate(sessionId, { escalation_status: 'requested', escalation_reason: 'visitor asked for a person' }, 'internal')).status).toBe(200);
    expect((await mailAbout(sessionId, 'asks for a person')).to).toEqual(['alice@docflow.test']);

    // The owner lists it among the escalated ones.
    const escalated = (await request(app).get('/api/agent-conversations/escalated').set('authorization', kit.alice.auth)).body as { data: SessionView[] };
    expect(escalated.data.map((s) => s.session_id)).toContain(sessionId);
    expect((await request(app).get('/api/agent-conversations/escalated').set('authorization', kit.bob.auth)).body).toEqual({ data: [] });

    // The agent no longer answers: no model call; the visitor is told a person will reply.
    const calls = kit.llm.callsTo('/api/v1/chat').length;
    const held = await request(app).post(`/api/agents/${agent.slug}/public-chat`).set('X-Agent-Key', agent.api_key!).send({ query: 'Hello?', session_id: sessionId });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ answer: HOLD_MESSAGE, tools_used: [], trace: [], escalation_status: 'requested' });
    expect(kit.llm.callsTo('/api/v1/chat')).toHaveLength(calls);

    // Assigned to a person's address: that person is mailed.
    expect((await escalate(sessionId, { escalation_status: 'assigned', assigned_agent: 'carol@docflow.test' })).status).toBe(200);
    expect((await mailAbout(sessionId, 'assigned to you')).to).toEqual(['carol@docflow.test']);

    // The owner replies as a person; only the owner may, only while a person holds it.
    expect((await request(app).post(`/api/agent-conversations/${sessionId}/human-reply`).set('authorization', kit.bob.auth).send({ content: 'x' })).status).toBe(404);
    expect((await request(app).post(`/api/agent-conversations/${sessionId}/human-reply`).set('authorization', kit.alice.auth).send({})).status).toBe(400);
    const reply = await request(app).post(`/api/agent-conversations/${sessionId}/human-reply`).set('authorization', kit.alice.auth).send({ content: 'Your parcel left today.' });
    expect(reply.status).toBe(201);
    expect((reply.body as { data: MessageView }).data).toMatchObject({ role: 'assistant', content: 'Your parcel left today.', metadata: { human: true, author_id: kit.alice.id } });

    // The visitor's next message gets the person's reply, still without the model.
    const answered = await request(app).post(`/api/agents/${agent.slug}/public-chat`).set('X-Agent-Key', agent.api_key!).send({ query: 'Any news?', session_id: sessionId });
    expect(answered.body).toMatchObject({ answer: 'Your parcel left today.', escalation_status: 'assigned' });
    expect(kit.llm.callsTo('/api/v1/chat')).toHaveLength(calls);

    // Resolved: the agent answers again, and a person may no longer reply.
    expect((await escalate(sessionId, { escalation_status: 'resolved' })).status).toBe(200);
    expect((await request(app).post(`/api/agent-conversations/${sessionId}/human-reply`).set('authorization', kit.alice.auth).send({ content: 'late' })).status).toBe(409);
    kit.llm.chatReplies.push({ content: 'Glad it is sorted.' });
    const after = await request(app).post(`/api/agents/${agent.slug}/public-chat`).set('X-Agent-Key', agent.api_key!).send({ query: 'Thanks', session_id: sessionId });
    expect(after.body).toMatchObject({ answer: 'Glad it is sorted.', escalation_status: 'resolved' });
    const messages = (await request(app).get(`/api/agent-conversations/${sessionId}/messages`).set('authorization', kit.alice.auth)).body as { data: { messages: MessageView[] } };
    expect(messages.data.messages.map((m) => [m.role, m.content, m.metadata['human'] === true])).toEqual([
      ['user', 'My order never came', false],
      ['assistant', 'I am the bot.', false],
      ['user', 'Hello?', false],
      ['assistant', 'Your parcel left today.', true],
      ['user', 'Any news?', false],
      ['user', 'Thanks', false],
      ['assistant', 'Glad it is sorted.', false],
    ]);
    const still = (await request(app).get('/api/agent-conversations/escalated').set('authorization', kit.alice.auth)).body as { data: SessionView[] };
    expect(still.data.map((s) => s.session_id)).not.toContain(sessionId);
  });

  it('assigns a request to the owner who replies to it', async () => {
    const id = await sessionAt('requested');
    expect((await request(app).post(`/api/agent-conversations/${id}/human-reply`).set('authorization', kit.alice.auth).send({ content: 'On it.' })).status).toBe(201);
    expect(await status(id)).toMatchObject({ escalation_status: 'assigned', assigned_agent: 'alice@docflow.test' });
  });
});
