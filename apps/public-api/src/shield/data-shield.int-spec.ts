import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type express from 'express';
import { DetectionEngine, ScopeSealer, ShieldService } from '@docflow/data-shield';
import { silentLogger } from '@docflow/service-kit';
import type { AuditLog } from '../identity';
import { seedDemoUsers } from '../identity';
import { buildTestApi, openTestBed, recordingLogger, type TestBed, testConfig } from '../test-support/test-app';
import { UsersRepository } from '../identity';
import { UsersService } from '../identity';

const SERVICE_KEY = 'data-shield-int-service-key-0123456789';
let bed: TestBed;
let app: express.Express;
let audit: AuditLog;
let alice = '';
let bob = '';
let aliceId = 0;
let llm: http.Server;
const previewCalls: Record<string, unknown>[] = [];
const chatCalls: Record<string, unknown>[] = [];

/** A stand-in for the LLM service's preview route, running the real engine in process. */
async function startFakeLlmService(): Promise<string> {
  const shield = new ShieldService({ engine: new DetectionEngine(), sealer: new ScopeSealer('k', 60_000), logger: silentLogger });
  llm = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      if (req.url === '/api/v1/chat') {
        chatCalls.push(JSON.parse(raw) as Record<string, unknown>);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ content: 'ok', message: { role: 'assistant', content: 'ok' }, model: 'm', provider: 'local', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, cost: 0 }),
        );
        return;
      }
      const body = JSON.parse(raw) as { text: string; entity_types?: string[]; tenant?: string };
      previewCalls.push({ ...body, service_key: req.headers['x-service-key'] });
      void shield.preview({ text: body.text, entityTypes: body.entity_types, tenant: undefined }).then((r) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ text: r.text, entities: r.entities, entity_counts: r.entityCounts, layers: r.layers, latencies_ms: r.latencies }));
      });
    });
  });
  await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(llm.address() as AddressInfo).port}`;
}

async function login(identifier: string, password: string): Promise<string> {
  const res = await request(app).post('/api/auth/local').send({ identifier, password });
  expect(res.status).toBe(200);
  return (res.body as { jwt: string }).jwt;
}

const as = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  bed = await openTestBed();
  await seedDemoUsers(new UsersService(new UsersRepository(bed.database)), recordingLogger());
  const llmUrl = await startFakeLlmService();
  const api = buildTestApi(bed, { config: testConfig({ SERVICE_KEY, LLM_SERVICE_URL: llmUrl }) });
  app = api.app;
  audit = api.audit;
  alice = await login('alice', 'Alice#Pass123');
  bob = await login('bob', 'Bob#Pass123');
  aliceId = ((await bed.database.query("SELECT id FROM users WHERE username = 'alice'")) as { id: number }[])[0]!.id;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => llm?.close(() => resolve()));
  await bed?.close();
}, 60_000);

describe('tenant detectors', () => {
  it('creates, reads, updates and deletes the caller’s L1 patterns; another user sees none of them', async () => {
    const created = await request(app)
      .post('/api/data-shield/patterns')
      .set(as(alice))
      .send({ data: { name: 'policy', entity_type: 'POLICY_NUMBER', pattern: 'POL-\\d{6}' } })
      .expect(201);
    const id = created.body.data.id as number;
    expect(created.body.data).toMatchObject({ kind: 'pattern', name: 'policy', entity_type: 'POLICY_NUMBER', pattern: 'POL-\\d{6}', enabled: true });
    expect((await request(app).get('/api/data-shield/patterns').set(as(alice)).expect(200)).body.data).toHaveLength(1);
    expect((await request(app).get('/api/data-shield/patterns').set(as(bob)).expect(200)).body.data).toEqual([]);
    await request(app).get(`/api/data-shield/patterns/${id}`).set(as(bob)).expect(404);
    const updated = await request(app).put(`/api/data-shield/patterns/${id}`).set(as(alice)).send({ pattern: 'POL-\\d{8}', score: 0.8 }).expect(200);
    expect(updated.body.data).toMatchObject({ name: 'policy', pattern: 'POL-\\d{8}', score: expect.closeTo(0.8, 5) });
    await request(app).post('/api/data-shield/patterns').set(as(alice)).send({ name: 'policy', entity_type: 'X', pattern: 'x' }).expect(409);
    await request(app).delete(`/api/data-shield/patterns/${id}`).set(as(alice)).expect(200);
    await request(app).get(`/api/data-shield/patterns/${id}`).set(as(alice)).expect(404);
  });

  it('refuses with 400 a regex RE2 cannot run, naming why, and a bad entity type', async () => {
    for (const pattern of ['(unclosed', '(a)\\1', '(?<=x)y', '']) {
      const res = await request(app).post('/api/data-shield/recognizers').set(as(alice)).send({ name: 'bad', entity_type: 'BAD', pattern }).expect(400);
      expect(res.body.error.details.errors.join(' ')).toMatch(/^pattern /);
    }
    const res = await request(app).post('/api/data-shield/patterns').set(as(alice)).send({ name: 'bad', entity_type: 'lower case', pattern: 'x+' }).expect(400);
    expect(res.body.error.details.errors[0]).toMatch(/^entity_type/);
    // A catastrophic pattern for backtracking engines is fine in RE2.
    await request(app).post('/api/data-shield/patterns').set(as(bob)).send({ name: 'evil', entity_type: 'EVIL', pattern: '(a+)+$' }).expect(201);
  });

  it('keeps word lists and recognizers, and serves the enabled ones with installed packs to service callers only', async () => {
    await request(app)
      .post('/api/data-shield/word-lists')
      .set(as(alice))
      .send({ name: 'projects', entity_type: 'PROJECT', words: ['Project Falcon', ' Bluebird ', 'Bluebird'] })
      .expect(201);
    await request(app)
      .post('/api/data-shield/recognizers')
      .set(as(alice))
      .send({ name: 'member', entity_type: 'MEMBER_ID', pattern: '\\b[A-Z]{2}\\d{6}\\b', context_words: ['member'], score: 0.3, score_threshold: 0.6 })
      .expect(201);
    await request(app)
      .post('/api/data-shield/word-lists')
      .set(as(alice))
      .send({ name: 'off', entity_type: 'OFF', words: ['x'], enabled: false })
      .expect(201);
    const packs = await request(app).post('/api/data-shield/packs/insurance/install').set(as(alice)).expect(200);
    expect(packs.body.data).toEqual({ name: 'insurance', installed: true });
    await request(app).post('/api/data-shield/packs/unknown/install').set(as(alice)).expect(404);
    const listed = await request(app).get('/api/data-shield/packs').set(as(alice)).expect(200);
    expect(listed.body.data.map((p: { name: string; installed: boolean }) => `${p.name}:${p.installed}`)).toEqual(['insurance:true', 'hr:false', 'financial:false']);

    await request(app).get(`/api/internal/data-shield/detectors?tenant=${aliceId}`).expect(401);
    await request(app).get(`/api/internal/data-shield/detectors?tenant=${aliceId}`).set(as(alice)).expect(401);
    const detectors = await request(app).get(`/api/internal/data-shield/detectors?tenant=${aliceId}`).set('x-service-key', SERVICE_KEY).expect(200);
    expect(detectors.body.tenant).toBe(String(aliceId));
    expect(detectors.body.word_lists.map((w: { name: string }) => w.name)).toEqual(['projects', 'insurance.health_conditions']);
    expect(detectors.body.word_lists[0].words).toEqual(['Project Falcon', 'Bluebird']);
    expect(detectors.body.recognizers.map((r: { name: string }) => r.name)).toEqual(['member', 'insurance.member_id', 'insurance.group_number']);
    expect(detectors.body.patterns.map((p: { name: string }) => p.name)).toEqual(['insurance.policy_number', 'insurance.claim_number', 'insurance.medicare_mbi']);

    await request(app).delete('/api/data-shield/packs/insurance').set(as(alice)).expect(200);
    const after = await request(app).get(`/api/internal/data-shield/detectors?tenant=${aliceId}`).set('x-service-key', SERVICE_KEY).expect(200);
    expect(after.body.patterns).toEqual([]);
  });
});

describe('preview, audit rows and recent events', () => {
  it('previews through the LLM service with the caller as tenant', async () => {
    const res = await request(app).post('/api/data-shield/preview').set(as(alice)).send({ text: 'Mail jane@example.com, card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32.' }).expect(200);
    expect(res.body.tokenised_text).toMatch(/^Mail EMAIL_[0-9a-f]{8}, card CREDIT_CARD_[0-9a-f]{8}, IBAN IBAN_[0-9a-f]{8}\.$/);
    expect(res.body.entity_counts).toEqual({ EMAIL: 1, CREDIT_CARD: 1, IBAN: 1 });
    expect(res.body.entities[0]).toEqual({ type: 'EMAIL', start: 5, end: 21, score: 1, layer: 'L1' });
    expect(Object.keys(res.body.latency_ms)).toContain('total_ms');
    expect(previewCalls.at(-1)).toMatchObject({ tenant: String(aliceId), actor_user_id: aliceId, service_key: SERVICE_KEY });
    await request(app).post('/api/data-shield/preview').set(as(alice)).send({ text: '' }).expect(400);
    await request(app).post('/api/data-shield/preview').send({ text: 'x' }).expect(401);
  });

  it('stores one row per audit event with counts only, for DATA_SHIELD_AUDIT_RETENTION_DAYS, and lists the caller’s rows', async () => {
    const event = {
      action: 'data_shield.tokenise',
      tenant: String(aliceId),
      actor_user: aliceId,
      correlation_id: 'corr-ds-1',
      endpoint: 'extract',
      entity_counts: { EMAIL: 2, PHONE: 1 },
      layers: ['L1', 'L3'],
      latencies_ms: { l1_ms: 0.2, total_ms: 1.5 },
      model: 'gpt-4o-mini',
      provider: 'openai',
      texts: 2,
      characters: 120,
      text: 'jane@example.com leaked by a careless caller',
    };
    await request(app)
      .post('/api/internal/data-shield/audit-events')
      .send({ events: [event] })
      .expect(401);
    const res = await request(app)
      .post('/api/internal/data-shield/audit-events')
      .set('x-service-key', SERVICE_KEY)
      .send({ events: [event, { action: 'other' }] })
      .expect(202);
    expect(res.body.accepted).toBe(1);
    await audit.flush();
    const rows = (await bed.database.query(
      "SELECT details, tenant, actor_user_id, correlation_id, retain_until - created_at AS kept FROM audit_log WHERE action = 'data_shield.tokenise' AND correlation_id = 'corr-ds-1'",
    )) as {
      details: Record<string, unknown>;
      tenant: string;
      actor_user_id: number;
      kept: { days: number };
    }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.details).toEqual({
      endpoint: 'extract',
      entity_counts: [
        { type: 'EMAIL', count: 2 },
        { type: 'PHONE', count: 1 },
      ],
      entities_total: 3,
      layers: ['L1', 'L3'],
      latencies_ms: { l1_ms: 0.2, total_ms: 1.5 },
      model: 'gpt-4o-mini',
      provider: 'openai',
      texts: 2,
      characters: 120,
    });
    expect(JSON.stringify(rows)).not.toContain('jane@example.com');
    expect(rows[0]!.kept.days).toBe(30);

    const mine = await request(app).get('/api/data-shield/recent-events').set(as(alice)).expect(200);
    expect(mine.body.data[0]).toMatchObject({ action: 'data_shield.tokenise', correlation_id: 'corr-ds-1', actor_user: aliceId });
    expect((await request(app).get('/api/data-shield/recent-events').set(as(bob)).expect(200)).body.data).toEqual([]);
  });

  it('deletes Data Shield rows once their retention has passed', async () => {
    await bed.database.query(
      "INSERT INTO audit_log (action, actor_user_id, tenant, correlation_id, details, created_at, retain_until) VALUES ('data_shield.tokenise', $1, $2, 'old-ds', '{}', now() - interval '31 days', now() - interval '1 day')",
      [aliceId, String(aliceId)],
    );
    await audit.purgeExpired();
    expect(await bed.database.query("SELECT id FROM audit_log WHERE correlation_id = 'old-ds'")).toEqual([]);
  });
});

describe('agents and chatbots opt in to Data Shield', () => {
  it('keeps a per-agent setting, off by default, that only the owner reads and changes, and shields the agent’s model calls when on', async () => {
    const agent = await request(app)
      .post('/api/agents')
      .set(as(alice))
      .send({ data: { name: 'Shielded helper', goal: 'Answer', available_tools: [] } })
      .expect(201);
    const agentId = agent.body.data.id as number;
    const slug = agent.body.data.slug as string;
    expect((await request(app).get(`/api/data-shield/agents/${agentId}`).set(as(alice)).expect(200)).body.data).toEqual({ kind: 'agent', id: agentId, enabled: false, entity_types: null });
    await request(app).get(`/api/data-shield/agents/${agentId}`).set(as(bob)).expect(404);
    await request(app).put(`/api/data-shield/agents/${agentId}`).set(as(bob)).send({ enabled: true }).expect(404);
    await request(app).put(`/api/data-shield/agents/${agentId}`).set(as(alice)).send({ enabled: 'yes' }).expect(400);

    await request(app).post(`/api/agents/${slug}/public-chat`).set(as(alice)).send({ query: 'Mail jane@example.com' }).expect(200);
    expect(chatCalls.at(-1)!['data_shield']).toBeUndefined();

    const on = await request(app)
      .put(`/api/data-shield/agents/${agentId}`)
      .set(as(alice))
      .send({ data: { enabled: true, entity_types: ['EMAIL'] } })
      .expect(200);
    expect(on.body.data).toEqual({ kind: 'agent', id: agentId, enabled: true, entity_types: ['EMAIL'] });
    await request(app).post(`/api/agents/${slug}/public-chat`).set(as(alice)).send({ query: 'Mail jane@example.com' }).expect(200);
    expect(chatCalls.at(-1)!['data_shield']).toEqual({ enabled: true, tenant: String(aliceId), actor_user_id: aliceId, entry_point: 'agent', entity_types: ['EMAIL'] });
  });

  it('keeps a per-chatbot setting for its owner', async () => {
    const bot = await request(app)
      .post('/api/chatbots')
      .set(as(alice))
      .send({ data: { name: 'Shielded bot' } })
      .expect(201);
    const id = bot.body.data.id as number;
    await request(app).put(`/api/data-shield/chatbots/${id}`).set(as(alice)).send({ enabled: true }).expect(200);
    expect((await request(app).get(`/api/data-shield/chatbots/${id}`).set(as(alice)).expect(200)).body.data).toMatchObject({ kind: 'chatbot', enabled: true });
    await request(app).get(`/api/data-shield/chatbots/${id}`).set(as(bob)).expect(404);
    await request(app).get('/api/data-shield/chatbots/999999').set(as(alice)).expect(404);
  });
});
