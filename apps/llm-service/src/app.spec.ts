import request from 'supertest';
import { signServiceToken } from '@docflow/internal-auth';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { createApp } from './app';
import { createShieldRuntime } from '@docflow/data-shield';
import { type DataShield, HttpDataShield } from './data-shield/data-shield.client';
import { InProcessDataShield } from './data-shield/in-process.data-shield';
import { Pricing } from './pricing/pricing';
import { buildProviderRegistry } from './providers/registry';
import { anthropicMessage, openAiCompletion, recordingClock, startStubServer, StubHandler, StubServer } from './testing/stub-server';

const SERVICE_KEY = 'test-service-key-0123456789';
const JWT_SECRET = 'test-jwt-secret-0123456789';
const OPENAI_KEY = 'sk-openai-secret-abcdef';
const ANTHROPIC_KEY = 'sk-ant-secret-abcdef';

let openai: StubServer;
let anthropic: StubServer;
let shield: StubServer;
let openaiReply: StubHandler;
let anthropicReply: StubHandler;
let shieldReply: StubHandler;

beforeAll(async () => {
  openai = await startStubServer((req, i) => openaiReply(req, i));
  anthropic = await startStubServer((req, i) => anthropicReply(req, i));
  shield = await startStubServer((req, i) => shieldReply(req, i));
});

afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), shield.close()]);
});

beforeEach(() => {
  for (const s of [openai, anthropic, shield]) s.requests.length = 0;
  openaiReply = () => ({ status: 200, body: openAiCompletion('plain answer') });
  anthropicReply = () => ({ status: 200, body: anthropicMessage([{ type: 'text', text: 'claude answer' }]) });
  // What the gateway answers today: detection is not built, so it fails closed.
  shieldReply = () => ({ status: 503, body: { error: 'data_shield_unavailable', message: 'not available', details: { retry_after: 60 } } });
});

function build(options: { shieldUrl?: string; dataShield?: DataShield; shieldingDisabled?: boolean } = {}) {
  const clock = recordingClock();
  const metrics = new Metrics('llm-service-test');
  const providers = buildProviderRegistry(
    [
      { modelType: 'provider_a', kind: 'openai', url: `${openai.url}/v1`, apiKey: OPENAI_KEY, model: 'gpt-4o-mini' },
      { modelType: 'provider_b', kind: 'anthropic', url: `${anthropic.url}/v1`, apiKey: ANTHROPIC_KEY },
      { modelType: 'provider_c', kind: 'openai' },
    ],
    { timeoutMs: 5000, retry: { maxRetries: 2, baseMs: 100, maxWaitMs: 20000 }, clock },
  );
  const app = createApp({
    logger: silentLogger,
    metrics,
    auth: { serviceKey: SERVICE_KEY, jwtSecret: JWT_SECRET },
    providers,
    dataShield: options.dataShield ?? new HttpDataShield({ baseUrl: options.shieldUrl ?? shield.url, serviceKey: SERVICE_KEY, timeoutMs: 2000 }),
    shieldingDisabled: options.shieldingDisabled ?? false,
    pricing: new Pricing({ 'house-model': { input_per_1k: 0.5, output_per_1k: 1.5 } }),
    clock,
  });
  return { app, metrics, clock };
}

const post = (app: ReturnType<typeof build>['app'], path: string, body: unknown) =>
  request(app)
    .post(path)
    .set('X-Service-Key', SERVICE_KEY)
    .send(body as object);

function metricValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('health, metrics and auth', () => {
  it('serves /_health and /metrics without credentials', async () => {
    const { app } = build();
    await request(app).get('/_health').expect(204);
    const metrics = await request(app).get('/metrics').expect(200);
    expect(metrics.text).toContain('llm_requests_total');
  });

  it('refuses the API without a service key (401) and accepts a service JWT', async () => {
    const { app } = build();
    const missing = await request(app).post('/api/v1/extract').send({ content: 'x', prompt_template: 'y' }).expect(401);
    expect(missing.body).toEqual({ error: 'unauthorized', message: 'Missing service credentials', details: {} });
    await request(app)
      .post('/api/v1/chat')
      .set('X-Service-Key', 'wrong')
      .send({ messages: [{ role: 'user', content: 'hi' }] })
      .expect(401);
    expect(openai.requests).toHaveLength(0);
    const token = signServiceToken(JWT_SECRET, 'workflow-processor');
    await request(app)
      .post('/api/v1/chat')
      .set('Authorization', `Bearer ${token}`)
      .send({ messages: [{ role: 'user', content: 'hi' }] })
      .expect(200);
  });
});

describe('POST /api/v1/extract', () => {
  it('renders the legacy template around {{content}} and answers {content, model, provider, cost, usage}', async () => {
    const { app } = build();
    const res = await post(app, '/api/v1/extract', { content: 'The sky is blue.', prompt_template: 'Describe: {{content}} Thanks.' }).expect(200);
    expect(openai.requests[0]!.body).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Describe: The sky is blue. Thanks.' }] });
    expect(res.body).toEqual({
      content: 'plain answer',
      model: 'gpt-4o-mini',
      provider: 'openai',
      cost: 0.000005,
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  });

  it('appends the content to a template without a placeholder', async () => {
    const { app } = build();
    await post(app, '/api/v1/extract', { content: 'Body $& text', prompt_template: 'Summarise this:' }).expect(200);
    expect(openai.requests[0]!.body).toMatchObject({ messages: [{ role: 'user', content: 'Summarise this:\n\nBody $& text' }] });
  });

  it('accepts the messages form and parses JSON content when the prompt asks for JSON', async () => {
    openaiReply = () => ({ status: 200, body: openAiCompletion('{"invoice_number": "A-1", "total": 12.5}') });
    const { app } = build();
    const messages = [
      { role: 'system', content: 'Return JSON.' },
      { role: 'user', content: 'Invoice A-1, total 12.50' },
    ];
    const res = await post(app, '/api/v1/extract', { messages }).expect(200);
    expect(openai.requests[0]!.body).toMatchObject({ messages });
    expect(res.body.content).toEqual({ invoice_number: 'A-1', total: 12.5 });
  });

  it('parses JSON inside a ```json fence, and sends JSON mode for output_format json', async () => {
    openaiReply = () => ({ status: 200, body: openAiCompletion('Here you are:\n```json\n[{"name": "a"}, {"name": "b"}]\n```') });
    const { app } = build();
    const res = await post(app, '/api/v1/extract', { content: 'a and b', prompt_template: 'List the names.', output_format: 'json' }).expect(200);
    expect(res.body.content).toEqual([{ name: 'a' }, { name: 'b' }]);
    expect(openai.requests[0]!.body).toMatchObject({ response_format: { type: 'json_object' } });
  });

  it('keeps text when JSON was not asked for or output_format is text', async () => {
    openaiReply = () => ({ status: 200, body: openAiCompletion('{"a": 1}') });
    const { app } = build();
    const plain = await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'Say something.' }).expect(200);
    expect(plain.body.content).toBe('{"a": 1}');
    const text = await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'Give JSON.', output_format: 'text' }).expect(200);
    expect(text.body.content).toBe('{"a": 1}');
  });

  it('answers 422 missing_field when neither form is sent', async () => {
    const { app } = build();
    const none = await post(app, '/api/v1/extract', { model_type: 'provider_a' }).expect(422);
    expect(none.body).toMatchObject({ error: 'missing_field', message: expect.any(String), details: { missing: ['messages', 'content', 'prompt_template'] } });
    const half = await post(app, '/api/v1/extract', { content: 'only content', messages: [] }).expect(422);
    expect(half.body.details.missing).toEqual(['prompt_template']);
    expect(openai.requests).toHaveLength(0);
  });

  it('answers 400 with details.errors for malformed fields', async () => {
    const { app } = build();
    const res = await post(app, '/api/v1/extract', { messages: [{ role: 'bot', content: 1 }], model_type: 'provider_z', redact_pii: 'yes' }).expect(400);
    expect(res.body.error).toBe('validation_error');
    const errors = res.body.details.errors as string[];
    expect(errors.some((e) => e.includes('model_type'))).toBe(true);
    expect(errors.some((e) => e.includes('role'))).toBe(true);
    expect(errors.some((e) => e.includes('redact_pii'))).toBe(true);
  });

  it('retries 429 and 500 from the provider, then succeeds', async () => {
    const replies = [
      { status: 429, body: { error: { message: 'rate' } }, headers: { 'retry-after': '2' } },
      { status: 500, body: {} },
      { status: 200, body: openAiCompletion('third time') },
    ];
    openaiReply = (_req, i) => replies[i]!;
    const { app, clock } = build();
    const res = await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'y' }).expect(200);
    expect(res.body.content).toBe('third time');
    expect(openai.requests).toHaveLength(3);
    expect(clock.sleeps).toEqual([2000, 250]);
  });

  it('answers 503 llm_service_unavailable with details.retry_after when retries are exhausted', async () => {
    openaiReply = () => ({ status: 429, body: { error: { message: 'rate limited' } }, headers: { 'retry-after': '7' } });
    const { app } = build();
    const res = await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'y' }).expect(503);
    expect(res.body).toMatchObject({ error: 'llm_service_unavailable', details: { retry_after: 7, provider: 'openai' } });
    expect(openai.requests).toHaveLength(3);
  });

  it('answers 502 llm_provider_error for a 400 from the provider, with its message and without the key', async () => {
    openaiReply = () => ({ status: 400, body: { error: { message: `context too long (key ${OPENAI_KEY})` } } });
    const { app } = build();
    const res = await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'y' }).expect(502);
    expect(res.body.error).toBe('llm_provider_error');
    expect(res.body.message).toContain('context too long');
    expect(JSON.stringify(res.body)).not.toContain(OPENAI_KEY);
    expect(openai.requests).toHaveLength(1);
  });

  it('prices tokens from the table: 1000 in and 500 out of gpt-4o-mini cost 0.00045 USD', async () => {
    openaiReply = () => ({ status: 200, body: openAiCompletion('ok', { prompt: 1000, completion: 500, model: 'gpt-4o-mini-2024-07-18' }) });
    const { app } = build();
    const res = await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'y' }).expect(200);
    expect(res.body).toMatchObject({ model: 'gpt-4o-mini-2024-07-18', cost: 0.00045 });

    anthropicReply = () => ({ status: 200, body: anthropicMessage([{ type: 'text', text: 'ok' }], { model: 'house-model', input: 123, output: 77 }) });
    const priced = await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'y', model_type: 'provider_b' }).expect(200);
    // LLM_PRICES override: 0.123 * 0.5 + 0.077 * 1.5 = 0.177
    expect(priced.body).toMatchObject({ provider: 'anthropic', model: 'house-model', cost: 0.177 });
  });

  it('counts requests, tokens and cost in /metrics', async () => {
    openaiReply = (_req, i) => (i === 0 ? { status: 200, body: openAiCompletion('ok', { prompt: 1000, completion: 500 }) } : { status: 404, body: { error: { message: 'no such model' } } });
    const { app } = build();
    await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'y' }).expect(200);
    await post(app, '/api/v1/extract', { content: 'x', prompt_template: 'y' }).expect(502);
    const text = (await request(app).get('/metrics').expect(200)).text;
    const base = { provider: 'openai', model: 'gpt-4o-mini' };
    expect(metricValue(text, 'llm_requests_total', { ...base, endpoint: 'extract', outcome: 'success' })).toBe(1);
    expect(metricValue(text, 'llm_requests_total', { ...base, endpoint: 'extract', outcome: 'provider_error' })).toBe(1);
    expect(metricValue(text, 'llm_tokens_total', { ...base, direction: 'input' })).toBe(1000);
    expect(metricValue(text, 'llm_tokens_total', { ...base, direction: 'output' })).toBe(500);
    expect(metricValue(text, 'llm_cost_usd_total', base)).toBeCloseTo(0.00045, 9);
    expect(metricValue(text, 'llm_request_duration_seconds_count', base)).toBe(2);
  });
});

describe('Data Shield on extract', () => {
  it('fails closed with 503 when redact_pii is set and the gateway refuses; the provider receives nothing', async () => {
    const { app } = build();
    const res = await post(app, '/api/v1/extract', { content: 'Mail alice@example.com', prompt_template: 'y', redact_pii: true }).expect(503);
    expect(res.body).toMatchObject({ error: 'data_shield_unavailable', details: { retry_after: 60 } });
    expect(openai.requests).toHaveLength(0);
    expect(shield.requests).toHaveLength(1);
    expect(shield.requests[0]!.path).toBe('/api/v1/entities');
    expect(shield.requests[0]!.headers['x-service-key']).toBe(SERVICE_KEY);
  });

  it('fails closed when the gateway is unreachable', async () => {
    const gone = await startStubServer(() => ({ status: 200 }));
    await gone.close();
    const { app } = build({ shieldUrl: gone.url });
    const res = await post(app, '/api/v1/extract', { messages: [{ role: 'user', content: 'Mail alice@example.com' }], data_shield: { enabled: true } }).expect(503);
    expect(res.body.error).toBe('data_shield_unavailable');
    expect(openai.requests).toHaveLength(0);
  });

  it('sends only tokenised text to the provider and restores the answer here, in one round trip to the gateway', async () => {
    // The gateway answers spans; the tokens and the reverse map are the LLM service's.
    const spansOf = (t: string) => (t.includes('alice@example.com') ? [['EMAIL', t.indexOf('alice@example.com'), t.indexOf('alice@example.com') + 17]] : []);
    shieldReply = (req) => ({ status: 200, body: { entities: (req.body as { texts: string[] }).texts.map(spansOf), entity_counts: { EMAIL: 1 }, layers: ['L1'] } });
    openaiReply = (req) => {
      const token = /EMAIL_[0-9a-f]{8}/.exec(JSON.stringify(req.body))?.[0];
      return { status: 200, body: openAiCompletion(`{"email": "${token}", "other": "EMAIL_00000000"}`) };
    };
    const { app } = build();
    const res = await post(app, '/api/v1/extract', {
      content: 'Mail alice@example.com',
      prompt_template: 'Return JSON with the email.',
      data_shield: { enabled: true, entity_types: ['EMAIL'] },
    }).expect(200);
    const sent = JSON.stringify(openai.requests[0]!.body);
    expect(sent).not.toContain('alice@example.com');
    expect(sent).toMatch(/Mail EMAIL_[0-9a-f]{8}/);
    expect(shield.requests.map((r) => r.path)).toEqual(['/api/v1/entities']);
    expect(shield.requests[0]!.body).toMatchObject({ entity_types: ['EMAIL'] });
    expect(res.body.content).toEqual({ email: 'alice@example.com', other: 'EMAIL_00000000' });
    expect(res.body.data_shield).toMatchObject({ shielded: true, entity_counts: { EMAIL: 1 }, layers: ['L1'] });
  });

  it.each([
    ['a span past its text', (t: string) => [['EMAIL', 0, t.length + 1]]],
    ['an empty span', () => [['EMAIL', 3, 3]]],
    ['a type that cannot be a token', () => [['email', 0, 4]]],
    ['no list for a text', () => undefined],
  ])('fails closed on an entities answer with %s: 503 and the provider receives nothing', async (_what, spansOf) => {
    shieldReply = (req) => ({ status: 200, body: { entities: (req.body as { texts: string[] }).texts.map(spansOf), entity_counts: {}, layers: [] } });
    const { app } = build();
    const res = await post(app, '/api/v1/chat', { messages: [{ role: 'user', content: 'Mail alice@example.com' }], data_shield: { enabled: true } }).expect(503);
    expect(res.body.error).toBe('data_shield_unavailable');
    expect(openai.requests).toHaveLength(0);
  });

  // file_urls (issue 19, item 1): files/file-inputs.spec.ts.
});

describe('Data Shield in process, disabled, and preview', () => {
  const inProcess = () =>
    new InProcessDataShield(createShieldRuntime({ service: 'test', logger: silentLogger, jwtSecret: JWT_SECRET, auditDisabled: true, scopeTtlSeconds: 60, tenantCacheSeconds: 0 }).service);

  it('tokenises with the engine in process: the provider never sees the values, the answer comes back restored, and the tokenised prompt is reported', async () => {
    openaiReply = (req) => {
      const content = (req.body as { messages: { content: string }[] }).messages[0]!.content;
      return { status: 200, body: openAiCompletion(`Contact: ${/EMAIL_[0-9a-f]{8}/.exec(content)?.[0]}, card ${/CREDIT_CARD_[0-9a-f]{8}/.exec(content)?.[0]}`) };
    };
    const { app } = build({ dataShield: inProcess() });
    const res = await post(app, '/api/v1/extract', {
      messages: [{ role: 'user', content: 'Jane Smith (jane@example.com) paid with 4111 1111 1111 1111.' }],
      output_format: 'text',
      data_shield: { enabled: true, tenant: '2', actor_user_id: 2, entry_point: 'extraction' },
    }).expect(200);
    const sent = JSON.stringify(openai.requests[0]!.body);
    for (const raw of ['jane@example.com', '4111 1111 1111 1111', 'Jane Smith']) expect(sent).not.toContain(raw);
    expect(res.body.content).toBe('Contact: jane@example.com, card 4111 1111 1111 1111');
    expect(res.body.data_shield).toMatchObject({ shielded: true, entity_counts: { PERSON: 1, EMAIL: 1, CREDIT_CARD: 1 } });
    expect(res.body.data_shield.messages[0].content).toMatch(/^PERSON_[0-9a-f]{8} \(EMAIL_[0-9a-f]{8}\) paid with CREDIT_CARD_[0-9a-f]{8}\.$/);
  });

  it('with DATA_SHIELD_DISABLED sends in clear what asks for shielding, and refuses what a policy requires', async () => {
    const { app } = build({ shieldingDisabled: true });
    await post(app, '/api/v1/extract', { messages: [{ role: 'user', content: 'Mail alice@example.com' }], data_shield: { enabled: true } }).expect(200);
    expect(JSON.stringify(openai.requests[0]!.body)).toContain('alice@example.com');
    const refused = await post(app, '/api/v1/chat', { messages: [{ role: 'user', content: 'Mail alice@example.com' }], data_shield: { enabled: true, required: true } }).expect(403);
    expect(refused.body.error).toBe('data_shield_policy_violation');
    expect(refused.body.message).toMatch(/^DATA_SHIELD_POLICY_VIOLATION/);
    expect(openai.requests).toHaveLength(1);
    expect(shield.requests).toHaveLength(0);
    await post(app, '/api/v1/data-shield/preview', { text: 'x' }).expect(503);
  });

  it('previews through the shield it uses', async () => {
    const { app } = build({ dataShield: inProcess() });
    const res = await post(app, '/api/v1/data-shield/preview', { text: 'IBAN GB82 WEST 1234 5698 7654 32', entity_types: ['IBAN'] }).expect(200);
    expect(res.body).toMatchObject({ entities: [{ type: 'IBAN', start: 5, end: 32, layer: 'L1' }], entity_counts: { IBAN: 1 } });
    expect(res.body.text).toMatch(/^IBAN IBAN_[0-9a-f]{8}$/);
    await post(app, '/api/v1/data-shield/preview', { text: 5 }).expect(400);
  });
});

describe('the local engine behind a model type with no provider URL', () => {
  it('extracts invoice fields, reports provider local and costs nothing', async () => {
    const { app } = build();
    const res = await post(app, '/api/v1/extract', {
      model_type: 'provider_c',
      prompt_template: 'Extract these fields as JSON: {"invoice_number": "", "total": 0, "email": "", "iban": ""}\n\n{content}',
      content: 'Invoice #: 2024-77\nContact: ap@acme.example\nTotal: EUR 1.250,00',
    }).expect(200);
    expect(res.body).toMatchObject({ provider: 'local', model: 'docflow-local-1', cost: 0 });
    expect(res.body.content).toEqual({ invoice_number: '2024-77', total: 1250, email: 'ap@acme.example', iban: null });
  });
});

describe('POST /api/v1/chat', () => {
  it('returns the assistant message with OpenAI tool calls', async () => {
    const toolCalls = [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }];
    openaiReply = () => ({ status: 200, body: openAiCompletion(null, { toolCalls, prompt: 20, completion: 8 }) });
    const { app } = build();
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const res = await post(app, '/api/v1/chat', { messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools, temperature: 0 }).expect(200);
    expect(openai.requests[0]!.body).toMatchObject({ tools, temperature: 0 });
    expect(res.body).toEqual({
      content: '',
      message: { role: 'assistant', content: '', tool_calls: toolCalls },
      model: 'gpt-4o-mini',
      provider: 'openai',
      usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 },
      cost: 0.000008,
    });
  });

  it('maps Anthropic tool_use blocks to tool_calls', async () => {
    anthropicReply = () => ({ status: 200, body: anthropicMessage([{ type: 'tool_use', id: 'toolu_5', name: 'search', input: { q: 'docflow' } }]) });
    const { app } = build();
    const res = await post(app, '/api/v1/chat', {
      model_type: 'provider_b',
      messages: [
        { role: 'system', content: 'Use tools.' },
        { role: 'user', content: 'Search docflow' },
      ],
      tools: [{ type: 'function', function: { name: 'search' } }],
      max_tokens: 300,
    }).expect(200);
    expect(anthropic.requests[0]!.body).toMatchObject({ system: 'Use tools.', max_tokens: 300, tools: [{ name: 'search', input_schema: { type: 'object', properties: {} } }] });
    expect(res.body.message.tool_calls).toEqual([{ id: 'toolu_5', type: 'function', function: { name: 'search', arguments: '{"q":"docflow"}' } }]);
    expect(res.body.provider).toBe('anthropic');
  });

  it('answers 422 missing_field without a conversation, and 400 validation_error for a malformed one', async () => {
    const { app } = build();
    for (const body of [{}, { messages: [] }, { content: 'only content' }]) {
      const res = await post(app, '/api/v1/chat', body).expect(422);
      expect(res.body).toMatchObject({ error: 'missing_field', message: expect.any(String), details: { accepted_forms: [['messages'], ['content', 'prompt_template']] } });
    }
    const bad = await post(app, '/api/v1/chat', { messages: 'hi' }).expect(400);
    expect(bad.body.error).toBe('validation_error');
    expect(bad.body.details.errors.some((e: string) => e.includes('messages'))).toBe(true);
    expect(openai.requests).toHaveLength(0);
  });

  it('accepts the legacy content plus prompt_template form (spec 9) and answers content beside message', async () => {
    const { app } = build();
    const res = await post(app, '/api/v1/chat', { content: 'The sky is blue.', prompt_template: 'Describe: {content}' }).expect(200);
    expect(openai.requests[0]!.body).toMatchObject({ messages: [{ role: 'user', content: 'Describe: The sky is blue.' }] });
    expect(res.body).toMatchObject({ content: 'plain answer', message: { role: 'assistant', content: 'plain answer' }, model: 'gpt-4o-mini', provider: 'openai', cost: 0.000005 });
  });

  it('shields a chat with redact_pii as extract does, failing closed when the gateway refuses', async () => {
    const { app } = build();
    const res = await post(app, '/api/v1/chat', { messages: [{ role: 'user', content: 'Mail alice@example.com' }], redact_pii: true }).expect(503);
    expect(res.body).toMatchObject({ error: 'data_shield_unavailable' });
    expect(shield.requests).toHaveLength(1);
    expect(openai.requests).toHaveLength(0);
  });
});

describe('POST /api/v1/embeddings', () => {
  it('uses the openai provider, falls back to local for anthropic, and validates input', async () => {
    openaiReply = () => ({ status: 200, body: { model: 'text-embedding-3-small', data: [{ index: 0, embedding: [0.6, 0.8, 0] }], usage: { prompt_tokens: 1000 } } });
    const { app } = build();
    const remote = await post(app, '/api/v1/embeddings', { input: 'hello' }).expect(200);
    expect(remote.body).toMatchObject({ embeddings: [[0.6, 0.8, 0]], model: 'text-embedding-3-small', provider: 'openai', dimensions: 3, cost: 0.00002 });
    const fallback = await post(app, '/api/v1/embeddings', { input: ['solar power', 'wind power'], model_type: 'provider_b' }).expect(200);
    expect(fallback.body).toMatchObject({ provider: 'local', model: 'docflow-local-1', dimensions: 256, cost: 0 });
    expect(fallback.body.embeddings).toHaveLength(2);
    expect(anthropic.requests).toHaveLength(0);
    const bad = await post(app, '/api/v1/embeddings', { input: [1, 2] }).expect(400);
    expect(bad.body.details.errors).toEqual(['input must be a string or an array of strings']);
  });
});
