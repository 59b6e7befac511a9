import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { upload } from '../documents/test-support/documents-kit';
import { openRagKit, type RagKit, settled } from '../rag/test-support/rag-kit';
import type { AgentView } from './agents.service';
import type { ChatbotView } from './chatbots/chatbots.service';

/** Chat widgets on other sites (issue 18 item 8): CORS by allowed_origins, and answers as server-sent events. */
let kit: RagKit;
let bot: ChatbotView;
let openBot: ChatbotView;
let agent: AgentView;
let server: http.Server;
let base: string;

interface Frame {
  event: string;
  data: Record<string, unknown>;
}

/** The frames of an event stream (comments skipped). */
function framesOf(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => block.split('\n').some((l) => l.startsWith('event: ')))
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))!.slice('event: '.length);
      const data = lines.find((l) => l.startsWith('data: '))!.slice('data: '.length);
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** Reads a whole response body as text, whatever its type. */
const asText = (res: unknown, cb: (err: Error | null, body: string) => void): void => {
  // supertest hands its parser the Node response stream.
  const stream = res as http.IncomingMessage;
  let data = '';
  stream.setEncoding('utf8');
  stream.on('data', (c: string) => (data += c));
  stream.on('end', () => cb(null, data));
};

function preflight(path: string, origin: string, method = 'POST'): request.Test {
  return request(kit.app).options(path).set('Origin', origin).set('Access-Control-Request-Method', method).set('Access-Control-Request-Headers', 'content-type, x-chatbot-key');
}

beforeAll(async () => {
  kit = await openRagKit();
  const up = await upload(kit.app, kit.alice, {
    content: 'Opening hours.\n\nThe shop opens at nine in the morning and closes at six in the evening on weekdays.',
    filename: 'hours.txt',
    contentType: 'text/plain',
    fields: { title: 'Opening hours' },
  });
  const documentId = (up.body as { id: number }).id;
  await request(kit.app).post(`/api/documents/${documentId}/rag-enable`).set('authorization', kit.alice.auth).send({});
  expect((await settled(kit, documentId)).rag_processing_status).toBe('completed');

  const created = await request(kit.app)
    .post('/api/chatbots')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'Shop helper', allowed_origins: ['https://widgets.example.com', '*.partner.org'] } });
  expect(created.status).toBe(201);
  bot = (created.body as { data: ChatbotView }).data;
  const open = await request(kit.app)
    .post('/api/chatbots')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'Open helper' } });
  openBot = (open.body as { data: ChatbotView }).data;

  const made = await request(kit.app)
    .post('/api/agents')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'Shop agent', available_tools: [], allowed_origins: ['shop.example'] } });
  expect(made.status).toBe(201);
  agent = (made.body as { data: AgentView }).data;

  server = http.createServer(kit.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  kit?.llm.release();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await kit?.close();
});

describe('CORS on the public chat routes', () => {
  it('answers a preflight from an allowed origin with that origin, the methods and the headers a widget sends', async () => {
    const res = await preflight(`/api/chatbots/${bot.slug}/chat`, 'https://widgets.example.com');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://widgets.example.com');
    expect(res.headers['access-control-allow-methods']).toBe('POST, OPTIONS');
    expect(res.headers['access-control-allow-headers']).toBe('Content-Type, Accept, X-Chatbot-Key, X-Correlation-Id');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['vary']).toContain('Origin');
    // A `*.domain` entry covers the domain's subdomains.
    expect((await preflight(`/api/chatbots/${bot.slug}/chat`, 'https://shop.partner.org')).headers['access-control-allow-origin']).toBe('https://shop.partner.org');
  });

  it('gives other origins no CORS header (the browser stops there), and the call itself is 403 without one', async () => {
    const res = await preflight(`/api/chatbots/${bot.slug}/chat`, 'https://evil.example');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    expect(res.headers['vary']).toContain('Origin');

    const call = await request(kit.app).post(`/api/chatbots/${bot.slug}/chat`).set('Origin', 'https://evil.example').set('X-Chatbot-Key', bot.api_key!).send({ query: 'When do you open?' });
    expect(call.status).toBe(403);
    expect(call.headers['access-control-allow-origin']).toBeUndefined();
    expect(call.headers['vary']).toBe('Origin');
  });

  it('lets an allowed page read answers and refusals; an unknown slug’s preflight is 404', async () => {
    const ok = await request(kit.app).post(`/api/chatbots/${bot.slug}/chat`).set('Origin', 'https://widgets.example.com').set('X-Chatbot-Key', bot.api_key!).send({ query: 'When do you open?' });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://widgets.example.com');
    expect(ok.headers['access-control-expose-headers']).toContain('Retry-After');
    const wrongKey = await request(kit.app).post(`/api/chatbots/${bot.slug}/chat`).set('Origin', 'https://widgets.example.com').set('X-Chatbot-Key', 'cbk_wrong').send({ query: 'Hi' });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.headers['access-control-allow-origin']).toBe('https://widgets.example.com');
    const config = await request(kit.app).get(`/api/chatbots/${bot.slug}/config`).set('Origin', 'https://widgets.example.com');
    expect(config.headers['access-control-allow-origin']).toBe('https://widgets.example.com');
    expect((await preflight(`/api/chatbots/${bot.slug}/config`, 'https://widgets.example.com', 'GET')).headers['access-control-allow-methods']).toBe('GET, OPTIONS');
    expect((await preflight('/api/chatbots/no-such-bot/chat', 'https://widgets.example.com')).status).toBe(404);
  });

  it('accepts any origin for a chatbot without allowed_origins (spec 2.12 via 2.14: empty accepts any)', async () => {
    const res = await preflight(`/api/chatbots/${openBot.slug}/chat`, 'https://anywhere.example');
    expect(res.headers['access-control-allow-origin']).toBe('https://anywhere.example');
  });

  it('does the same for an agent’s public chat by its allowed_origins; key holders from other origins are 403, the owner’s token is not', async () => {
    expect(agent.allowed_origins).toEqual(['shop.example']);
    const pre = await preflight(`/api/agents/${agent.slug}/public-chat`, 'https://shop.example');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(pre.headers['access-control-allow-headers']).toBe('Content-Type, Accept, X-Agent-Key, Authorization, X-Correlation-Id');
    expect((await preflight(`/api/agents/${agent.slug}/public-chat`, 'https://other.example')).headers['access-control-allow-origin']).toBeUndefined();

    kit.llm.chatReplies.push({ content: 'We open at nine.' });
    const ok = await request(kit.app).post(`/api/agents/${agent.slug}/public-chat`).set('Origin', 'https://shop.example').set('X-Agent-Key', agent.api_key!).send({ query: 'When do you open?' });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(ok.body.answer).toBe('We open at nine.');

    const other = await request(kit.app).post(`/api/agents/${agent.slug}/public-chat`).set('Origin', 'https://other.example').set('X-Agent-Key', agent.api_key!).send({ query: 'When do you open?' });
    expect(other.status).toBe(403);
    kit.llm.chatReplies.push({ content: 'Owner here.' });
    const owner = await request(kit.app).post(`/api/agents/${agent.slug}/public-chat`).set('Origin', 'https://other.example').set('authorization', kit.alice.auth).send({ query: 'Test' });
    expect(owner.status).toBe(200);

    const changed = await request(kit.app)
      .put(`/api/agents/${agent.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { allowed_origins: ['*.example'] } });
    expect(changed.body.data.allowed_origins).toEqual(['*.example']);
    expect((await preflight(`/api/agents/${agent.slug}/public-chat`, 'https://other.example')).headers['access-control-allow-origin']).toBe('https://other.example');
    const bad = await request(kit.app)
      .put(`/api/agents/${agent.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { allowed_origins: 'shop.example' } });
    expect(bad.status).toBe(400);
    await request(kit.app)
      .put(`/api/agents/${agent.id}`)
      .set('authorization', kit.alice.auth)
      .send({ data: { allowed_origins: ['shop.example'] } })
      .expect(200);
  });
});

describe('chat answers as server-sent events', () => {
  it('streams a chatbot’s answer with Accept: text/event-stream: start, deltas that make up the answer, done with the JSON body', async () => {
    const res = await request(kit.app)
      .post(`/api/chatbots/${bot.slug}/chat`)
      .set('Accept', 'text/event-stream')
      .set('Origin', 'https://widgets.example.com')
      .set('X-Chatbot-Key', bot.api_key!)
      .send({ query: 'When does the shop open?', session_id: 'visitor-1' })
      .buffer(true)
      .parse(asText);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('https://widgets.example.com');
    const frames = framesOf(res.body as string);
    expect(frames[0]).toEqual({ event: 'start', data: { session_id: 'visitor-1' } });
    const done = frames[frames.length - 1]!;
    expect(done.event).toBe('done');
    const answer = done.data['answer'] as string;
    expect(answer).toContain('nine');
    const deltas = frames.filter((f) => f.event === 'delta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.map((f) => f.data['text']).join('')).toBe(answer);
    expect(done.data).toMatchObject({ session_id: 'visitor-1', sources: [expect.objectContaining({ title: 'Opening hours' })] });
  });

  it('takes ?stream=true too, and refuses before the stream as JSON with the status', async () => {
    const res = await request(kit.app)
      .post(`/api/chatbots/${openBot.slug}/chat?stream=true`)
      .set('X-Chatbot-Key', openBot.api_key!)
      .send({ query: 'When does the shop open?' })
      .buffer(true)
      .parse(asText);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const frames = framesOf(res.body as string);
    expect(frames.map((f) => f.event)).toEqual(['start', ...frames.slice(1, -1).map(() => 'delta'), 'done']);
    expect(frames[0]!.data['session_id']).toBe(frames[frames.length - 1]!.data['session_id']);

    const refused = await request(kit.app).post(`/api/chatbots/${openBot.slug}/chat?stream=true`).set('X-Chatbot-Key', 'cbk_wrong').send({ query: 'Hi' });
    expect(refused.status).toBe(401);
    expect(refused.headers['content-type']).toContain('application/json');
    expect(refused.body.error).toMatchObject({ status: 401, name: 'UnauthorizedError' });
  });

  it('sends start as soon as the checks pass, before the answer is ready (read from the socket)', async () => {
    kit.llm.hold(); // the question's embedding waits: the answer cannot be ready
    const received: string[] = [];
    const finished = new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${base}/api/chatbots/${bot.slug}/chat`,
        { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-Chatbot-Key': bot.api_key!, Origin: 'https://widgets.example.com' } },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (c: string) => received.push(c));
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ query: 'When does the shop close?' }));
    });
    const deadline = Date.now() + 5000;
    while (!received.join('').includes('event: start') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(received.join('')).toContain('event: start');
    expect(received.join('')).not.toContain('event: done');
    kit.llm.release();
    expect(await finished).toBe(200);
    const frames = framesOf(received.join(''));
    expect(frames[frames.length - 1]!.event).toBe('done');
    expect(frames[frames.length - 1]!.data['answer']).toContain('six');
  });

  it('streams an agent’s answer, and a failure after start is an error event with the error body', async () => {
    kit.llm.chatReplies.push({ content: 'We open at nine on weekdays, and close at six in the evening.' });
    const res = await request(kit.app)
      .post(`/api/agents/${agent.slug}/public-chat`)
      .set('Accept', 'text/event-stream')
      .set('X-Agent-Key', agent.api_key!)
      .set('Origin', 'https://shop.example')
      .send({ query: 'When do you open?' })
      .buffer(true)
      .parse(asText);
    expect(res.status).toBe(200);
    const frames = framesOf(res.body as string);
    expect(frames[0]!.event).toBe('start');
    expect(frames[0]!.data['session_id']).toEqual(expect.any(String));
    const done = frames[frames.length - 1]!;
    expect(done).toMatchObject({ event: 'done', data: { answer: 'We open at nine on weekdays, and close at six in the evening.', tools_used: [], session_id: frames[0]!.data['session_id'] } });
    expect(
      frames
        .filter((f) => f.event === 'delta')
        .map((f) => f.data['text'])
        .join(''),
    ).toBe(done.data['answer']);

    kit.llm.chatMode = 'down';
    try {
      const failed = await request(kit.app)
        .post(`/api/agents/${agent.slug}/public-chat`)
        .set('Accept', 'text/event-stream')
        .set('X-Agent-Key', agent.api_key!)
        .set('Origin', 'https://shop.example')
        .send({ query: 'Still there?' })
        .buffer(true)
        .parse(asText);
      expect(failed.status).toBe(200);
      const events = framesOf(failed.body as string);
      expect(events.map((f) => f.event)).toEqual(['start', 'error']);
      expect(events[1]!.data).toMatchObject({ error: { status: 503, name: 'ServiceUnavailableError' } });
    } finally {
      kit.llm.chatMode = 'local';
    }
  });
});
