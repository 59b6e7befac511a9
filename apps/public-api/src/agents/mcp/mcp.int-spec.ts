import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { LoopbackMcpServer } from '@docflow/testing';
import { openRagKit, type RagKit } from '../../rag/test-support/rag-kit';
import type { AgentRun, TraceStep } from '../agent-runner';
import type { AgentView } from '../agents.service';

/** An agent's MCP servers (issue 19, item 2) against a loopback MCP server built with the official SDK. */
let kit: RagKit;
let mcp: LoopbackMcpServer;
let downUrl: string;
let agent: AgentView;

type ChatAnswer = AgentRun & { session_id: string };
type ChatBody = { messages: { role: string; content: string | null }[]; tools?: { function: { name: string } }[] };
const chatCalls = (): ChatBody[] => kit.llm.callsTo('/api/v1/chat').map((c) => c.body as never);
const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } });

function chat(auth: { key?: string; bearer?: string }, query: string): request.Test {
  const req = request(kit.app).post(`/api/agents/${agent.slug}/public-chat`);
  if (auth.key) void req.set('X-Agent-Key', auth.key);
  if (auth.bearer) void req.set('authorization', auth.bearer);
  return req.send({ query });
}

async function freePortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/mcp`;
}

beforeAll(async () => {
  mcp = await LoopbackMcpServer.start();
  downUrl = await freePortUrl();
  kit = await openRagKit({
    REST_API_ALLOWED_HOSTS: `${mcp.hostPort},${new URL(downUrl).host}`,
    MCP_RESULT_MAX_CHARS: '100',
    MCP_CALL_TIMEOUT_MS: '500',
  });
  const credential = await request(kit.app)
    .post('/api/credentials')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'MCP token', provider: 'mcp', fields: { token: 's3cret-mcp' } } });
  expect(credential.status).toBe(201);
  const res = await request(kit.app)
    .post('/api/agents')
    .set('authorization', kit.alice.auth)
    .send({
      data: {
        name: 'Calculator',
        mcp_servers: [
          {
            name: 'calc',
            url: mcp.url,
            transport: 'streamable_http',
            credential_id: (credential.body as { data: { id: number } }).data.id,
            allowed_tools: ['add', 'whoami', 'big', 'slow'],
            public_tools: ['add'],
          },
          { name: 'old', url: mcp.sseUrl, transport: 'sse', allowed_tools: ['echo'] },
          { name: 'gone', url: downUrl },
        ],
      },
    });
  expect(res.status).toBe(201);
  agent = (res.body as { data: AgentView }).data;
});

afterAll(async () => {
  await kit?.close();
  await mcp?.stop();
});

describe('MCP tools of an agent', () => {
  it('offers the allowed tools as <server>.<tool>, calls one with the credential, and names it in tools_used; a down server only loses its tools', async () => {
    kit.llm.chatReplies.push({ content: '', tool_calls: [call('m1', 'calc__add', { a: 2, b: 3 }), call('m2', 'calc__whoami', {})] }, { content: 'Two and three make five.' });
    const mark = chatCalls().length;
    const res = await chat({ bearer: kit.alice.auth }, 'What is 2 + 3?');
    expect(res.status).toBe(200);
    const body = res.body as ChatAnswer;
    expect(body.answer).toBe('Two and three make five.');
    expect(body.tools_used.sort()).toEqual(['calc.add', 'calc.whoami']);
    const [first, second] = chatCalls().slice(mark);
    // `echo` of calc is not allowed; the SSE server's echo is; the down server offers nothing.
    expect(first!.tools!.map((t) => t.function.name).sort()).toEqual(['calc__add', 'calc__big', 'calc__slow', 'calc__whoami', 'old__echo']);
    const results = second!.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content!) as unknown);
    expect(results).toEqual(['5', 'Bearer s3cret-mcp']);
    expect(mcp.calls.slice(-2)).toEqual([
      { tool: 'add', arguments: { a: 2, b: 3 }, authorization: 'Bearer s3cret-mcp' },
      { tool: 'whoami', arguments: {}, authorization: 'Bearer s3cret-mcp' },
    ]);
    expect(body.trace.filter((s): s is Extract<TraceStep, { type: 'tool' }> => s.type === 'tool').map((s) => [s.tool, s.ok])).toEqual([
      ['calc.add', true],
      ['calc.whoami', true],
    ]);
  });

  it('reaches an older server over SSE, caps a large result, and times out a slow call without failing the turn', async () => {
    kit.llm.chatReplies.push(
      { content: '', tool_calls: [call('s1', 'old__echo', { text: 'over sse' }), call('s2', 'calc__big', { n: 5000 }), call('s3', 'calc__slow', { ms: 1200 })] },
      { content: 'Done.' },
    );
    const mark = chatCalls().length;
    const res = await chat({ bearer: kit.alice.auth }, 'Try the tools');
    expect(res.status).toBe(200);
    const tools = chatCalls()
      .slice(mark)[1]!
      .messages.filter((m) => m.role === 'tool')
      .map((m) => JSON.parse(m.content!) as unknown);
    expect(tools[0]).toBe('over sse');
    expect(tools[1]).toBe(`${'x'.repeat(100)}… [cut at 100 characters]`);
    expect(tools[2]).toEqual({ error: expect.stringContaining('calc.slow failed') });
    expect((res.body as ChatAnswer).answer).toBe('Done.');
  });

  it('offers key holders only the tools the owner marked public', async () => {
    kit.llm.chatReplies.push({ content: 'Hi.' });
    const mark = chatCalls().length;
    expect((await chat({ key: agent.api_key! }, 'Hello')).status).toBe(200);
    expect(chatCalls()[mark]!.tools!.map((t) => t.function.name)).toEqual(['calc__add']);
  });

  it('lists a server’s tools once within the TTL', async () => {
    const before = mcp.listings;
    kit.llm.chatReplies.push({ content: 'One.' }, { content: 'Two.' });
    await chat({ bearer: kit.alice.auth }, 'one');
    await chat({ bearer: kit.alice.auth }, 'two');
    expect(mcp.listings).toBe(before);
  });
});
