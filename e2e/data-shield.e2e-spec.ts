import { OpenAiStub, requestText } from './support/openai-stub';
import { eventually, Stack } from './support/stack';
import { chain, definition, endNode, objectSchema, startNode, taskNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(240000);

/** The sensitive values of the input, as written. */
const NAME = 'Jane Smith';
const EMAIL = 'jane.smith@example.com';
const CARD = '4111 1111 1111 1111';
const IBAN = 'GB82 WEST 1234 5698 7654 32';
const PHONE = '+1 (415) 555-2671';
const TEXT = `Customer ${NAME} (${EMAIL}, ${PHONE}) paid the March invoice with card ${CARD} and asks for refunds to IBAN ${IBAN}.`;
const RAW_VALUES = [NAME, EMAIL, CARD, IBAN, PHONE];
const TOKEN = /[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_[0-9a-f]{8}/g;

/** start → summarize → end on the input `text`; `config` is the node's extra config. */
function summarizeWorkflow(config: Record<string, unknown> = {}): Record<string, unknown> {
  return definition(
    [startNode(), taskNode('summarize', 'summarization_task', { summary_type: 'brief', max_length: 80, ...config }, 'Summarize'), endNode()],
    chain('start', 'summarize', 'end'),
    objectSchema({ text: { type: 'string' } }),
  );
}

describe('Data Shield end to end (six services, a loopback OpenAI-compatible provider)', () => {
  let stack: Stack;
  let provider: OpenAiStub;
  let alice: WorkflowApi;
  let bob: WorkflowApi;

  beforeAll(async () => {
    // The provider echoes every token it receives, so a restored answer shows the values again.
    provider = await OpenAiStub.start({
      record: true,
      answer: (body) => {
        const tokens = requestText(body).match(TOKEN) ?? [];
        return { content: tokens.length ? `Summary for ${[...new Set(tokens)].join(' and ')}.` : 'Summary of the message.', promptTokens: 40, completionTokens: 10 };
      },
    });
    stack = await Stack.start({ portOffset: 500, env: { LLM_PROVIDER_A_URL: provider.baseUrl, LLM_PROVIDER_A_MODEL: 'gpt-4o-mini', DATA_SHIELD_TENANT_CACHE_SECONDS: '0' } });
    [alice, bob] = await Promise.all([WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123'), WorkflowApi.login(stack.api, 'bob@docflow.local', 'Bob#Pass123')]);
  });

  afterAll(async () => {
    await stack?.stop();
    await provider?.stop();
  });

  it('previews a paragraph: tokenised text and the entities with type, span, score and layer', async () => {
    const res = await alice.expect<{
      tokenised_text: string;
      entities: { type: string; start: number; end: number; score: number; layer: string }[];
      entity_counts: Record<string, number>;
      latency_ms: Record<string, number>;
    }>(200, 'POST', '/data-shield/preview', { text: TEXT });
    for (const raw of RAW_VALUES) expect(res.tokenised_text).not.toContain(raw);
    expect(res.entity_counts).toEqual({ PERSON: 1, EMAIL: 1, PHONE: 1, CREDIT_CARD: 1, IBAN: 1 });
    expect(res.entities.map((e) => `${e.type}:${TEXT.slice(e.start, e.end)}:${e.layer}`)).toEqual([
      `PERSON:${NAME}:L3`,
      `EMAIL:${EMAIL}:L1`,
      `PHONE:${PHONE}:L1`,
      `CREDIT_CARD:${CARD}:L1`,
      `IBAN:${IBAN}:L1`,
    ]);
    expect(res.latency_ms.total_ms).toEqual(expect.any(Number));
  });

  it('shields a workflow whose policy requires it: the provider never sees the values, the answer comes back restored, the tokenised prompt is stored', async () => {
    const before = provider.count;
    const activity = await alice.createActivity({ name: 'Shielded summary', workflow_definition: summarizeWorkflow(), data_shield_policy: { required: true } });
    const done = await alice.run(activity, { text: TEXT }, 60000);
    expect(done.status).toBe('completed');
    const sent = provider.requests
      .slice(before)
      .map((b) => JSON.stringify(b))
      .join('\n');
    expect(provider.count).toBe(before + 1);
    for (const raw of RAW_VALUES) expect(sent).not.toContain(raw);
    expect(sent).toMatch(/EMAIL_[0-9a-f]{8}/);

    const output = done.outputs!['summarize']!;
    for (const raw of [EMAIL, CARD, IBAN, NAME]) expect(String(output['summary'])).toContain(raw);
    const diagnostics = output['_prompt_diagnostics'] as { shielded: boolean; calls: { messages: { content: string }[]; entity_counts: Record<string, number> }[] };
    expect(diagnostics.shielded).toBe(true);
    expect(diagnostics.calls[0]!.entity_counts).toMatchObject({ EMAIL: 1, CREDIT_CARD: 1, IBAN: 1, PERSON: 1 });
    const storedPrompt = JSON.stringify(diagnostics.calls[0]!.messages);
    for (const raw of RAW_VALUES) expect(storedPrompt).not.toContain(raw);
    expect(storedPrompt).toMatch(/IBAN_[0-9a-f]{8}/);
  });

  it('writes data_shield.tokenise audit rows with counts, layers, latencies and model, never a raw value, to the caller only', async () => {
    const rows = await eventually(
      async () => {
        const res = await alice.expect<{ data: { action: string; details: Record<string, unknown>; retain_until: string; correlation_id: string | null }[] }>(200, 'GET', '/data-shield/recent-events');
        return res.data.some((r) => r.details['endpoint'] === 'summarization') ? res.data : undefined;
      },
      15000,
      'the shielded run’s audit row',
    );
    const row = rows.find((r) => r.details['endpoint'] === 'summarization')!;
    expect(row).toMatchObject({ action: 'data_shield.tokenise', details: { provider: 'openai', model: 'gpt-4o-mini', layers: expect.arrayContaining(['L1', 'L3']) } });
    expect(row.details['entity_counts']).toEqual(
      expect.arrayContaining([
        { type: 'EMAIL', count: 1 },
        { type: 'IBAN', count: 1 },
      ]),
    );
    expect(row.correlation_id).toEqual(expect.any(String));
    const days = (Date.parse(row.retain_until) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(days).toBeLessThanOrEqual(30);
    const all = JSON.stringify(rows);
    for (const raw of RAW_VALUES) expect(all).not.toContain(raw);
    expect((await bob.expect<{ data: unknown[] }>(200, 'GET', '/data-shield/recent-events')).data).toEqual([]);
  });

  it('sends the values when nothing asks for shielding', async () => {
    const before = provider.count;
    const activity = await alice.createActivity({ name: 'Plain summary', workflow_definition: summarizeWorkflow() });
    expect((await alice.run(activity, { text: TEXT }, 60000)).status).toBe('completed');
    const sent = provider.requests
      .slice(before)
      .map((b) => JSON.stringify(b))
      .join('\n');
    for (const raw of [EMAIL, CARD, IBAN, NAME]) expect(sent).toContain(raw);
  });

  it('fails a run whose policy requires shielding and whose LLM node opts out, with DATA_SHIELD_POLICY_VIOLATION and no provider call', async () => {
    const before = provider.count;
    const activity = await alice.createActivity({ name: 'Opted out', workflow_definition: summarizeWorkflow({ data_shield: false }), data_shield_policy: { required: true } });
    const done = await alice.run(activity, { text: TEXT }, 60000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^DATA_SHIELD_POLICY_VIOLATION: node summarize/);
    expect(done.failed_node).toBe('summarize');
    expect(provider.count).toBe(before);
  });

  it('applies the tenant’s detectors, and a catastrophic tenant regex on a long input neither stalls nor crashes the gateway', async () => {
    await alice.expect(201, 'POST', '/data-shield/patterns', { data: { name: 'policy', entity_type: 'POLICY_NUMBER', pattern: 'POL-\\d{6}' } });
    await alice.expect(201, 'POST', '/data-shield/patterns', { data: { name: 'evil', entity_type: 'EVIL', pattern: '(a+)+$' } });
    const bad = await alice.request<{ error: { details: { errors: string[] } } }>('POST', '/data-shield/patterns', { data: { name: 'bad', entity_type: 'BAD', pattern: '(a)\\1' } });
    expect(bad.status).toBe(400);
    const long = `Policy POL-123456 ${'a'.repeat(90_000)}!`;
    const res = await alice.expect<{ entity_counts: Record<string, number> }>(200, 'POST', '/data-shield/preview', { text: long });
    expect(res.entity_counts).toEqual({ POLICY_NUMBER: 1 });
    // Bob's text meets none of alice's detectors.
    expect((await bob.expect<{ entity_counts: Record<string, number> }>(200, 'POST', '/data-shield/preview', { text: 'Policy POL-123456' })).entity_counts).toEqual({});
    expect((await fetch(`${stack.url('data-shield')}/_health`)).status).toBe(204);
  });

  it('fails closed with 503 when the gateway is stopped: nothing reaches the provider', async () => {
    const activity = await alice.createActivity({ name: 'Shielded, gateway down', workflow_definition: summarizeWorkflow({ data_shield: true }) });
    await stack.stopService('data-shield');
    const before = provider.count;
    const preview = await alice.request<{ error: { status: number } }>('POST', '/data-shield/preview', { text: TEXT });
    expect(preview.status).toBe(503);
    const done = await alice.run(activity, { text: TEXT }, 60000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/Data Shield/);
    expect(provider.count).toBe(before);
  });
});
