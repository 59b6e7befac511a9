import request from 'supertest';
import { createShieldRuntime, type NamedEntityRecognizer, type ShieldAuditEvent, ShieldService, DetectionEngine, ScopeSealer } from '@docflow/data-shield';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { createApp, createRequestListener } from './app';

const SERVICE_KEY = 'test-service-key';
const auth = { serviceKey: SERVICE_KEY, jwtSecret: 'test-jwt-secret-of-enough-length' };

const runtime = createShieldRuntime({ service: 'test', logger: silentLogger, jwtSecret: auth.jwtSecret, auditDisabled: true, scopeTtlSeconds: 60, tenantCacheSeconds: 0 });

// Every behaviour holds for the express app alone and for what the service runs (entities and tokenise through JSON lanes).
describe.each([
  ['express app', createApp],
  ['request listener with the JSON lanes', createRequestListener],
] as const)('Data Shield gateway (%s)', (_name, factory) => {
  const build = (shield: ShieldService) => factory({ logger: silentLogger, metrics: new Metrics('data-shield-test'), health: [], auth, shield });
  const app = build(runtime.service);
  const post = (path: string, body: unknown) =>
    request(app)
      .post(path)
      .set('x-service-key', SERVICE_KEY)
      .send(body as object);

  it('refuses calls without service credentials', async () => {
    await request(app)
      .post('/api/v1/tokenise')
      .send({ texts: ['x'] })
      .expect(401);
  });

  it('tokenises every text in one scope and restores the reply', async () => {
    const texts = ['Ask Jane Smith at jane@example.com', 'Card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, again jane@example.com'];
    const res = await post('/api/v1/tokenise', { texts, context: { endpoint: 'extract' } }).expect(200);
    const out = res.body.texts as string[];
    for (const raw of ['jane@example.com', '4111 1111 1111 1111', 'DE89 3704 0044 0532 0130 00', 'Jane Smith']) expect(out.join('\n')).not.toContain(raw);
    const email = /EMAIL_[0-9a-f]{8}/.exec(out[0]!)![0];
    expect(out[1]).toContain(email);
    expect(res.body.entity_counts).toEqual({ PERSON: 1, EMAIL: 2, CREDIT_CARD: 1, IBAN: 1 });
    expect(res.body.scope_id).not.toContain('jane');
    const restored = await post('/api/v1/restore', { scope_id: res.body.scope_id, texts: [`Reply to ${email} and EMAIL_00000000.`] }).expect(200);
    expect(restored.body.texts).toEqual(['Reply to jane@example.com and EMAIL_00000000.']);
  });

  it('answers the entities of every text as [type, start, end] with no value and no scope, audited as one tokenise call', async () => {
    const events: ShieldAuditEvent[] = [];
    const shield = new ShieldService({ engine: new DetectionEngine(), sealer: new ScopeSealer('k', 60000), logger: silentLogger, audit: { emit: (e) => events.push(e) } });
    const texts = ['Mail jane@example.com', 'Card 4111 1111 1111 1111, again jane@example.com', 'nothing here'];
    const res = await request(build(shield))
      .post('/api/v1/entities')
      .set('x-service-key', SERVICE_KEY)
      .set('x-correlation-id', 'corr-2')
      .send({ texts, entity_types: ['EMAIL', 'CREDIT_CARD'], context: { endpoint: 'extract' } })
      .expect(200);
    expect(res.body.entities).toEqual([
      [['EMAIL', 5, 21]],
      [
        ['CREDIT_CARD', 5, 24],
        ['EMAIL', 32, 48],
      ],
      [],
    ]);
    expect(res.body).toMatchObject({ entity_counts: { EMAIL: 2, CREDIT_CARD: 1 }, layers: ['L1'] });
    expect(res.body.scope_id).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain('jane@example.com');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'data_shield.tokenise', correlation_id: 'corr-2', endpoint: 'extract', entity_counts: { EMAIL: 2, CREDIT_CARD: 1 }, texts: 3 });
    expect(JSON.stringify(events)).not.toContain('jane@example.com');
    await post('/api/v1/entities', { texts: 'not a list' }).expect(400);
    await request(app)
      .post('/api/v1/entities')
      .send({ texts: ['x'] })
      .expect(401);
  });

  it('fails closed with 503 on /entities when a detector throws', async () => {
    const broken: NamedEntityRecognizer = {
      tag: () => {
        throw new Error('boom');
      },
    };
    const shield = new ShieldService({ engine: new DetectionEngine({ ner: broken }), sealer: new ScopeSealer('k', 60000), logger: silentLogger });
    const res = await request(build(shield))
      .post('/api/v1/entities')
      .set('x-service-key', SERVICE_KEY)
      .send({ texts: ['Jane Smith'] })
      .expect(503);
    expect(res.body.error).toBe('data_shield_unavailable');
    expect(res.body.entities).toBeUndefined();
  });

  it('restores a streamed reply across chunk boundaries', async () => {
    const tok = await post('/api/v1/tokenise', { texts: ['mail bob@example.org'] }).expect(200);
    const token = /EMAIL_[0-9a-f]{8}/.exec(tok.body.texts[0])![0];
    const reply = `Sent to ${token}.`;
    const chunks = [reply.slice(0, 11), reply.slice(11, 15), reply.slice(15)];
    const res = await post('/api/v1/restore-stream', { scope_id: tok.body.scope_id, chunks }).expect(200);
    expect((res.body.chunks as string[]).join('')).toBe('Sent to bob@example.org.');
  });

  it('answers 400 for a scope it did not issue', async () => {
    const res = await post('/api/v1/restore', { scope_id: 'dss1.AAAA', texts: ['x'] }).expect(400);
    expect(res.body.error).toBe('invalid_scope');
  });

  it('previews a detection with entity spans, counts and latencies, never values in the entities', async () => {
    const text = 'Call +1 (415) 555-2671 about 4111-1111-1111-1111.';
    const res = await post('/api/v1/detect', { text }).expect(200);
    expect(res.body.entities).toEqual([
      { type: 'PHONE', start: 5, end: 22, score: 0.95, layer: 'L1' },
      { type: 'CREDIT_CARD', start: 29, end: 48, score: 1, layer: 'L1' },
    ]);
    expect(res.body.entity_counts).toEqual({ PHONE: 1, CREDIT_CARD: 1 });
    expect(res.body.text).toMatch(/^Call PHONE_[0-9a-f]{8} about CREDIT_CARD_[0-9a-f]{8}\.$/);
    expect(Object.keys(res.body.latencies_ms)).toEqual(expect.arrayContaining(['l1_ms', 'l2_ms', 'l3_ms', 'resolve_ms', 'tokenise_ms', 'total_ms']));
  });

  it('fails closed with 503 when a detector throws', async () => {
    const broken: NamedEntityRecognizer = {
      tag: () => {
        throw new Error('boom');
      },
    };
    const events: ShieldAuditEvent[] = [];
    const shield = new ShieldService({ engine: new DetectionEngine({ ner: broken }), sealer: new ScopeSealer('k', 60000), logger: silentLogger, audit: { emit: (e) => events.push(e) } });
    const res = await request(build(shield))
      .post('/api/v1/tokenise')
      .set('x-service-key', SERVICE_KEY)
      .send({ texts: ['Jane Smith'] })
      .expect(503);
    expect(res.body.error).toBe('data_shield_unavailable');
    expect(res.body.texts).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('audits one row per call with counts and never a value, and survives an audit sink that throws', async () => {
    const events: ShieldAuditEvent[] = [];
    const shield = new ShieldService({ engine: new DetectionEngine(), sealer: new ScopeSealer('k', 60000), logger: silentLogger, audit: { emit: (e) => events.push(e) } });
    await request(build(shield))
      .post('/api/v1/tokenise')
      .set('x-service-key', SERVICE_KEY)
      .set('x-correlation-id', 'corr-1')
      .send({ texts: ['a@b.io and c@d.io'], tenant: '2', actor_user_id: 2, context: { endpoint: 'chat', model: 'gpt-x', provider: 'openai' } })
      .expect(200);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      action: 'data_shield.tokenise',
      tenant: '2',
      actor_user: 2,
      correlation_id: 'corr-1',
      endpoint: 'chat',
      model: 'gpt-x',
      provider: 'openai',
      entity_counts: { EMAIL: 2 },
      layers: ['L1', 'L3'],
    });
    expect(JSON.stringify(events)).not.toContain('a@b.io');
    const throwing = new ShieldService({
      engine: new DetectionEngine(),
      sealer: new ScopeSealer('k', 60000),
      logger: silentLogger,
      audit: {
        emit: () => {
          throw new Error('down');
        },
      },
    });
    await request(build(throwing))
      .post('/api/v1/tokenise')
      .set('x-service-key', SERVICE_KEY)
      .send({ texts: ['a@b.io'] })
      .expect(200);
  });

  it('uses the built-in detectors alone when the tenant source is unreachable', async () => {
    const shield = new ShieldService({
      engine: new DetectionEngine(),
      sealer: new ScopeSealer('k', 60000),
      logger: silentLogger,
      tenants: { load: () => Promise.reject(new Error('connect ECONNREFUSED')) },
    });
    const res = await request(build(shield))
      .post('/api/v1/tokenise')
      .set('x-service-key', SERVICE_KEY)
      .send({ texts: ['a@b.io POL-123456'], tenant: '9' })
      .expect(200);
    expect(res.body.entity_counts).toEqual({ EMAIL: 1 });
  });

  it('applies tenant detectors from the source', async () => {
    const shield = new ShieldService({
      engine: new DetectionEngine(),
      sealer: new ScopeSealer('k', 60000),
      logger: silentLogger,
      tenants: {
        load: async (tenant) => ({
          tenant,
          patterns: [
            { name: 'p', entity_type: 'POLICY_NUMBER', pattern: 'POL-\\d{6}' },
            { name: 'evil', entity_type: 'EVIL', pattern: '(a+)+$' },
          ],
          word_lists: [],
          recognizers: [],
        }),
      },
    });
    const res = await request(build(shield))
      .post('/api/v1/tokenise')
      .set('x-service-key', SERVICE_KEY)
      .send({ texts: [`POL-123456 ${'a'.repeat(100_000)}!`], tenant: '9' })
      .expect(200);
    expect(res.body.entity_counts).toEqual({ POLICY_NUMBER: 1 });
  });

  it('answers 401 for a wrong key, 400 for a bad body or malformed JSON, 413 past the limit, 415 for text/plain', async () => {
    const wrong = await request(app)
      .post('/api/v1/tokenise')
      .set('x-service-key', 'nope')
      .send({ texts: ['x'] })
      .expect(401);
    expect(wrong.body).toMatchObject({ error: 'unauthorized', message: 'Invalid service key' });
    const invalid = await post('/api/v1/tokenise', { texts: 'not a list' }).expect(400);
    expect(invalid.body.message).toBe('Invalid tokenise request');
    const malformed = await request(app).post('/api/v1/tokenise').set('x-service-key', SERVICE_KEY).set('content-type', 'application/json').send('{"texts": [').expect(400);
    expect(malformed.body.details.errors).toEqual(['body is not valid JSON']);
    const nested = await request(app)
      .post('/api/v1/tokenise')
      .set('x-service-key', SERVICE_KEY)
      .set('content-type', 'application/json')
      .send(`{"texts": ["a"], "x": ${'['.repeat(70)}${']'.repeat(70)}}`)
      .expect(400);
    expect(nested.body.message).toBe('Request body is nested too deeply');
    await post('/api/v1/tokenise', { texts: ['x'.repeat(11 * 1024 * 1024)] }).expect(413);
    await request(app).post('/api/v1/tokenise').set('x-service-key', SERVICE_KEY).set('content-type', 'text/plain').send('{"texts": ["a"]}').expect(415);
  });

  it("answers the caller's correlation id and runs the call under it", async () => {
    const events: ShieldAuditEvent[] = [];
    const shield = new ShieldService({ engine: new DetectionEngine(), sealer: new ScopeSealer('k', 60000), logger: silentLogger, audit: { emit: (e) => events.push(e) } });
    const res = await request(build(shield))
      .post('/api/v1/tokenise')
      .set('x-service-key', SERVICE_KEY)
      .set('x-correlation-id', 'corr-77')
      .send({ texts: ['a@b.io'] })
      .expect(200);
    expect(res.headers['x-correlation-id']).toBe('corr-77');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(events[0]?.correlation_id).toBe('corr-77');
    const generated = await request(build(shield))
      .post('/api/v1/tokenise')
      .set('x-service-key', SERVICE_KEY)
      .send({ texts: ['a@b.io'] })
      .expect(200);
    expect(generated.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
