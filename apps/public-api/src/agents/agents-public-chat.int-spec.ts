import request from 'supertest';
import { createMailer } from '@docflow/mail';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { buildPublicApi } from '../app';
import { sha256Hex } from '../platform';
import { upload } from '../documents/test-support/documents-kit';
import { openRagKit, type RagKit, settled } from '../rag/test-support/rag-kit';
import type { AgentRun } from './agent-runner';
import type { AgentView } from './agents.service';

/** What key holders of an agent reach and spend (issue 13, item 11, and the session low), with limits set low. */
let kit: RagKit;
let publicDoc = 0;
let privateDoc = 0;
let collectionId = 0;

type ChatAnswer = AgentRun & { session_id: string };
type ChatCall = { messages: { role: string; content: string | null }[]; tools?: { function: { name: string } }[] };

function chat(slug: string, auth: { key?: string; bearer?: string }, body: Record<string, unknown>, app = kit.app): request.Test {
  const req = request(app).post(`/api/agents/${slug}/public-chat`);
  if (auth.key) void req.set('X-Agent-Key', auth.key);
  if (auth.bearer) void req.set('authorization', auth.bearer);
  return req.send(body);
}

const chatCalls = (): ChatCall[] => kit.llm.callsTo('/api/v1/chat').map((c) => c.body as never);
const toolCall = (id: string, name: string, args: Record<string, unknown> = {}) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } });

async function document(title: string, content: string): Promise<number> {
  const up = await upload(kit.app, kit.alice, { content, filename: `${title.toLowerCase().replace(/\W+/g, '-')}.txt`, contentType: 'text/plain', fields: { title } });
  const id = (up.body as { id: number }).id;
  await request(kit.app).post(`/api/documents/${id}/rag-enable`).set('authorization', kit.alice.auth).send({});
  expect((await settled(kit, id)).rag_processing_status).toBe('completed');
  return id;
}

async function newAgent(name: string, extra: Record<string, unknown> = {}): Promise<AgentView> {
  const res = await request(kit.app)
    .post('/api/agents')
    .set('authorization', kit.alice.auth)
    .send({ data: { name, available_tools: ['search_documents', 'list_documents', 'list_workflows'], public_collection_id: collectionId, ...extra } });
  expect(res.status).toBe(201);
  return (res.body as { data: AgentView }).data;
}

beforeAll(async () => {
  kit = await openRagKit({ AGENT_CHAT_RATE_PER_KEY: '3', AGENT_CHAT_RATE_PER_SESSION: '2', AGENT_CHAT_MAX_MODEL_CALLS: '3', AGENT_CHAT_MAX_TOOL_CALLS: '4' });
  publicDoc = await document('Opening hours', 'The shop opens at nine and closes at six on weekdays.');
  privateDoc = await document('Salary bands', 'The shop manager earns ninety thousand a year; opening a store costs a lot.');
  const collection = await request(kit.app)
    .post('/api/collections/create-collection')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'Public to the shop bot', documents: [publicDoc] } });
  collectionId = (collection.body as { data: { id: number } }).data.id;
});

afterAll(async () => {
  await kit?.close();
});

describe('agent public chat: what key holders reach', () => {
  it('offers key holders only the document tools, over the collection the owner made public to the agent', async () => {
    const agent = await newAgent('Shop bot');
    expect(agent.public_collection_id).toBe(collectionId);
    kit.llm.chatReplies.push({ content: '', tool_calls: [toolCall('l1', 'list_documents')] }, { content: 'Listed.' });
    const before = chatCalls().length;
    const res = await chat(agent.slug, { key: agent.api_key }, { query: 'Which documents do you have?' });
    expect(res.status).toBe(200);
    const [first, second] = chatCalls().slice(before);
    expect(first!.tools!.map((t) => t.function.name).sort()).toEqual(['list_documents', 'search_documents']);
    const listed = JSON.parse(second!.messages.find((m) => m.role === 'tool')!.content!) as { id: number; title: string }[];
    expect(listed.map((d) => d.id)).toEqual([publicDoc]);

    // The owner's own bearer keeps every tool and every document.
    kit.llm.chatReplies.push({ content: '', tool_calls: [toolCall('l2', 'list_documents')] }, { content: 'Listed.' });
    const mark = chatCalls().length;
    await chat(agent.slug, { bearer: kit.alice.auth }, { query: 'Which documents do I have?' });
    const [mine, mineAfter] = chatCalls().slice(mark);
    expect(mine!.tools!.map((t) => t.function.name).sort()).toEqual(['list_documents', 'list_workflows', 'search_documents']);
    const all = JSON.parse(mineAfter!.messages.find((m) => m.role === 'tool')!.content!) as { id: number }[];
    expect(all.map((d) => d.id).sort()).toEqual([publicDoc, privateDoc].sort());
  });

  it('answers a key holder’s search only from the public collection', async () => {
    const agent = await newAgent('Shop search bot');
    kit.llm.chatReplies.push({ content: '', tool_calls: [toolCall('s1', 'search_documents', { query: 'shop opening manager earns' })] }, { content: 'From the sources.' }, { content: 'Done.' });
    const before = chatCalls().length;
    const res = await chat(agent.slug, { key: agent.api_key }, { query: 'Tell me about the shop' });
    expect(res.status).toBe(200);
    const calls = chatCalls().slice(before);
    const toolResult = JSON.parse(calls[calls.length - 1]!.messages.find((m) => m.role === 'tool')!.content!) as { sources: { document_id: number }[] };
    expect(toolResult.sources.length).toBeGreaterThan(0);
    expect(new Set(toolResult.sources.map((s) => s.document_id))).toEqual(new Set([publicDoc]));
    expect(JSON.stringify(calls)).not.toContain('ninety thousand');
  });

  it('gives key holders no documents when the owner made none public, and refuses another user’s collection', async () => {
    const agent = await newAgent('Closed bot', { public_collection_id: null });
    kit.llm.chatReplies.push({ content: '', tool_calls: [toolCall('c1', 'list_documents')] }, { content: 'Nothing.' });
    const before = chatCalls().length;
    await chat(agent.slug, { key: agent.api_key }, { query: 'List' });
    expect(
      JSON.parse(
        chatCalls()
          .slice(before)[1]!
          .messages.find((m) => m.role === 'tool')!.content!,
      ),
    ).toEqual([]);
    const bobs = await request(kit.app)
      .post('/api/collections/create-collection')
      .set('authorization', kit.bob.auth)
      .send({ data: { name: 'Bob’s' } });
    const refused = await request(kit.app)
      .put(`/api/agents/${agent.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { public_collection_id: (bobs.body as { data: { id: number } }).data.id } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { status: 400, details: { errors: [expect.stringContaining('public_collection_id')] } } });
  });
});

describe('agent public chat: rate and cost limits', () => {
  it('limits requests per key (AGENT_CHAT_RATE_PER_KEY) with 429 and Retry-After', async () => {
    const agent = await newAgent('Busy bot', { available_tools: [] });
    for (let i = 0; i < 3; i++) {
      kit.llm.chatReplies.push({ content: `Answer ${i}` });
      expect((await chat(agent.slug, { key: agent.api_key }, { query: `q${i}` })).status).toBe(200);
    }
    const before = chatCalls().length;
    const limited = await chat(agent.slug, { key: agent.api_key }, { query: 'one more' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ error: { status: 429, details: { retry_after: expect.any(Number) } } });
    expect(chatCalls().length).toBe(before);
  });

  it('counts a key across public API processes sharing the database, says when to retry, and starts afresh in the next window', async () => {
    const other = buildPublicApi({
      config: kit.config,
      logger: silentLogger,
      metrics: new Metrics('public-api'),
      database: kit.bed.database,
      mailer: createMailer({ outboxDir: kit.bed.outboxDir, from: 'Docflow <no-reply@docflow.local>', logger: silentLogger }),
      health: [],
      broker: kit.broker,
    });
    try {
      const [agent, another] = [await newAgent('Shared bot', { available_tools: [] }), await newAgent('Other bot', { available_tools: [] })];
      for (const app of [kit.app, other.app, kit.app]) {
        kit.llm.chatReplies.push({ content: 'ok' });
        expect((await chat(agent.slug, { key: agent.api_key }, { query: 'q' }, app)).status).toBe(200);
      }
      const limited = await chat(agent.slug, { key: agent.api_key }, { query: 'one more' }, other.app);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ error: { status: 429, details: { retry_after: Number(limited.headers['retry-after']) } } });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Another key has its own count.
      kit.llm.chatReplies.push({ content: 'ok' });
      expect((await chat(another.slug, { key: another.api_key }, { query: 'q' }, other.app)).status).toBe(200);
      // The window ends (as the database's clock would have it): the key starts afresh.
      await kit.bed.database.query("UPDATE rate_limit_counters SET expires_at = now() - interval '1 second' WHERE key = $1", [`agent-key:${sha256Hex(agent.api_key ?? '')}`]);
      kit.llm.chatReplies.push({ content: 'ok' });
      expect((await chat(agent.slug, { key: agent.api_key }, { query: 'again' }, other.app)).status).toBe(200);
    } finally {
      await other.documents.stop();
    }
  });

  it('limits requests per session (AGENT_CHAT_RATE_PER_SESSION); a new session is counted apart', async () => {
    const agent = await newAgent('Session bot', { available_tools: [] });
    kit.llm.chatReplies.push({ content: 'a' }, { content: 'b' }, { content: 'c' });
    const first = await chat(agent.slug, { bearer: kit.alice.auth }, { query: 'one' });
    const sessionId = (first.body as ChatAnswer).session_id;
    expect((await chat(agent.slug, { bearer: kit.alice.auth }, { query: 'two', session_id: sessionId })).status).toBe(200);
    expect((await chat(agent.slug, { bearer: kit.alice.auth }, { query: 'three', session_id: sessionId })).status).toBe(429);
    expect((await chat(agent.slug, { bearer: kit.alice.auth }, { query: 'elsewhere' })).status).toBe(200);
  });

  it('caps model calls and tool runs per request (AGENT_CHAT_MAX_MODEL_CALLS, AGENT_CHAT_MAX_TOOL_CALLS)', async () => {
    const agent = await newAgent('Greedy bot', { max_iterations: 10, available_tools: ['list_workflows'] });
    const threeCalls = (n: number) => ({ content: '', tool_calls: [0, 1, 2].map((i) => toolCall(`g${n}-${i}`, 'list_workflows')) });
    kit.llm.chatReplies.push(threeCalls(1), threeCalls(2), threeCalls(3), threeCalls(4), threeCalls(5));
    const before = chatCalls().length;
    const res = await chat(agent.slug, { bearer: kit.alice.auth }, { query: 'List forever' });
    expect(res.status).toBe(200);
    expect(chatCalls().length - before).toBe(3);
    const tools = (res.body as ChatAnswer).trace.filter((t) => t.type === 'tool');
    expect(tools.filter((t) => t.ok)).toHaveLength(4);
    expect(tools.filter((t) => !t.ok).every((t) => 'error' in t && t.error === 'not run: at most 4 tool calls per request')).toBe(true);
    kit.llm.chatReplies.length = 0;
  });
});

describe('agent public chat: a session belongs to the key it was made with', () => {
  it('answers 404 for a session of another key, of the owner, or of a key holder for the owner', async () => {
    const agent = await newAgent('Bound bot', { available_tools: [] });
    kit.llm.chatReplies.push({ content: 'hi' }, { content: 'hello' });
    const visitor = await chat(agent.slug, { key: agent.api_key }, { query: 'hi' });
    const visitorSession = (visitor.body as ChatAnswer).session_id;
    const owner = await chat(agent.slug, { bearer: kit.alice.auth }, { query: 'hello' });
    const ownerSession = (owner.body as ChatAnswer).session_id;

    expect((await chat(agent.slug, { key: agent.api_key }, { query: 'whose?', session_id: ownerSession })).status).toBe(404);
    expect((await chat(agent.slug, { bearer: kit.alice.auth }, { query: 'whose?', session_id: visitorSession })).status).toBe(404);
    // A new key (as regenerate-key makes) does not open the old key's sessions.
    const newKey = 'agk_new-key-for-the-bound-bot-0123456789abcdef';
    await kit.bed.database.query('UPDATE agents SET api_key_hash = $1 WHERE id = $2', [sha256Hex(newKey), agent.id]);
    expect((await chat(agent.slug, { key: newKey }, { query: 'whose?', session_id: visitorSession })).status).toBe(404);
  });
});
