import { verifyServiceToken } from '@docflow/internal-auth';
import { chain, definition, edge, endNode, startNode, taskNode } from './test-support/definitions';
import { HttpTarget } from '@docflow/testing';
import { ProcessorHarness } from './test-support/processor-harness';

jest.setTimeout(30000);

/** rest_api_task, decisions and parallel branches, driven through workflow_queue and results_queue. */
describe('workflow processor: REST workflows (RabbitMQ + PostgreSQL)', () => {
  let h: ProcessorHarness;
  let target: HttpTarget;
  let canary: HttpTarget;
  let elsewhere: HttpTarget;
  let publicApi: HttpTarget;
  let seq = 100;
  const nextId = () => (seq += 1);

  beforeAll(async () => {
    [target, canary, elsewhere, publicApi] = await Promise.all([HttpTarget.start('127.0.0.1'), HttpTarget.start('::'), HttpTarget.start('127.0.0.1'), HttpTarget.start('127.0.0.1')]);
    h = await ProcessorHarness.start('wfp_rest');
    await h.startProcessor({ REST_API_ALLOWED_HOSTS: `${target.hostPort},${elsewhere.hostPort}`, PUBLIC_API_INTERNAL_URL: publicApi.url('') });
  });

  afterAll(async () => {
    await h?.stop();
    await Promise.all([target?.stop(), canary?.stop(), elsewhere?.stop(), publicApi?.stop()]);
  });

  describe('a node with a credential_id (spec 2.7 rule 3)', () => {
    const SECRET = 'sk-opened-by-the-processor';

    /** The public API's node-credential route: a service JWT, then the fields of credential 4 for node `call` of job wf_<id>. */
    function credentialRoute(id: number): void {
      publicApi.on(`POST /api/workflow-executions/internal/${id}/node-credential`, (hit) => {
        const token = /^Bearer (\S+)$/.exec(hit.headers['authorization'] ?? '')?.[1] ?? '';
        try {
          verifyServiceToken(h.config().INTERNAL_SERVICE_JWT_SECRET, token);
        } catch {
          return { status: 401, body: { error: { status: 401, name: 'UnauthorizedError', message: 'no', details: {} } } };
        }
        const body = JSON.parse(hit.body) as { job_id: string; node_id: string };
        if (body.job_id !== `wf_${id}` || body.node_id !== 'call') return { status: 404, body: { error: { status: 404, name: 'NotFoundError', message: 'none', details: {} } } };
        return { body: { data: { credential_id: 4, fields: { api_key: SECRET, scheme: 'Token' } } } };
      });
    }

    const credentialNode = (path: string) =>
      taskNode('call', 'rest_api_task', {
        url: target.url(path),
        headers: { 'X-Api-Key': '{{api_key}}', Authorization: '{{credential.scheme}} {{api_key}}', Accept: 'application/json' },
        credential_id: 4,
      });

    it('authenticates against the target with fields it opens as the node runs; the job never held them', async () => {
      target.on('GET /secure', (hit) => (hit.headers['x-api-key'] === SECRET && hit.headers['authorization'] === `Token ${SECRET}` ? { body: { ok: true } } : { status: 401, body: 'who are you' }));
      const id = nextId();
      credentialRoute(id);
      const job = { workflow_definition: definition([startNode(), credentialNode('/secure')], chain('start', 'call')), inputs: {}, execution_id: id, user_id: 5 };
      expect(JSON.stringify(job)).not.toContain(SECRET);
      await h.submit(`wf_${id}`, job);
      const res = await h.results.next(`wf_${id}`);
      expect(res.status).toBe('completed');
      expect(res.outputs?.['call']).toMatchObject({ ok: true, status_code: 200 });
      expect(publicApi.hitsOf(`/api/workflow-executions/internal/${id}/node-credential`)).toHaveLength(1);
      expect(JSON.stringify(res)).not.toContain(SECRET);
    });

    it('drops the credential’s headers on a redirect to another origin', async () => {
      target.on('GET /bounce', () => ({ status: 302, headers: { location: elsewhere.url('/landing') } }));
      elsewhere.on('GET /landing', () => ({ body: { landed: true } }));
      const id = nextId();
      credentialRoute(id);
      await h.submit(`wf_${id}`, { workflow_definition: definition([startNode(), credentialNode('/bounce')], chain('start', 'call')), inputs: {}, execution_id: id, user_id: 5 });
      expect((await h.results.next(`wf_${id}`)).status).toBe('completed');
      expect(target.hitsOf('/bounce')[0]?.headers['x-api-key']).toBe(SECRET);
      const landed = elsewhere.hitsOf('/landing')[0]!;
      expect(landed.headers['x-api-key']).toBeUndefined();
      expect(landed.headers['authorization']).toBeUndefined();
      expect(JSON.stringify(landed.headers)).not.toContain(SECRET);
    });

    it('fails the node as a configuration error when the public API has no credential for it (another job, a bare job)', async () => {
      const id = nextId();
      credentialRoute(id);
      await h.submit(`wf_${id}_resume_1`, { workflow_definition: definition([startNode(), credentialNode('/secure')], chain('start', 'call')), inputs: {}, execution_id: id, user_id: 5 });
      const res = await h.results.next(`wf_${id}_resume_1`);
      expect(res.status).toBe('failed');
      expect(res.task_states?.['call']).toMatchObject({ status: 'failed', error_type: 'configuration_error' });
      const bare = `bare-${nextId()}`;
      await h.submit(bare, { workflow_definition: definition([startNode(), credentialNode('/secure')], chain('start', 'call')), inputs: {} });
      expect((await h.results.next(bare)).error).toMatch(/credential_id is only resolved for executions started through the public API/);
    });
  });

  it('runs a linear REST workflow with templates across nodes and output_mapping', async () => {
    target.on('GET /items/i-77', () => ({ body: { name: 'Widget', price: 12.5, tags: ['a', 'b'] } }));
    target.on('POST /orders', (hit) => ({ status: 201, body: { id: 'ord-1', received: JSON.parse(hit.body) as unknown } }));
    const id = nextId();
    const def = definition(
      [
        startNode(),
        taskNode('fetch', 'rest_api_task', { url: target.url('/items/{{item_id}}'), headers: { 'X-Trace': 'run-{{execution_id}}-{{trace}}' } }),
        taskNode('order', 'rest_api_task', {
          url: target.url('/orders'),
          method: 'POST',
          body: { item: '{{fetch.name}}', price: '{{fetch.data.price}}', note: 'for {{customer}}', user: '{{user_id}}' },
          output_mapping: { order_ref: '$.data.id', code: '$._status_code', first_tag: '$.data.received.tags[0]' },
        }),
        endNode(),
      ],
      chain('start', 'fetch', 'order', 'end'),
    );
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: { item_id: 'i-77', trace: 't1', customer: 'Ada' }, execution_id: id, user_id: 5 });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ job_id: `wf_${id}`, execution_id: id, status: 'completed' });
    expect(target.hitsOf('/items/i-77')[0]?.headers['x-trace']).toBe(`run-${id}-t1`);
    expect(JSON.parse(target.hitsOf('/orders')[0]?.body ?? 'null')).toEqual({ item: 'Widget', price: 12.5, note: 'for Ada', user: 5 });
    expect(res.outputs?.['fetch']).toMatchObject({ name: 'Widget', price: 12.5, status_code: 200, _status_code: 200, data: { name: 'Widget', price: 12.5, tags: ['a', 'b'] } });
    // A path that matches nothing maps to null.
    expect(res.outputs?.['order']).toMatchObject({ order_ref: 'ord-1', code: 201, status_code: 201, id: 'ord-1', first_tag: null });
    expect(res.task_states?.['order']).toMatchObject({ status: 'completed', task_type: 'rest_api_task', label: 'Node order', error: null });
    expect(res.task_states?.['end']?.status).toBe('completed');
  });

  it('unwraps a {success, data} envelope and keeps the raw body', async () => {
    target.on('GET /envelope', () => ({ body: { success: true, data: { id: 9, items: [{ id: 'x1' }] }, meta: { next: '/p2' } } }));
    const id = nextId();
    const def = definition(
      [startNode(), taskNode('call', 'rest_api_task', { url: target.url('/envelope'), output_mapping: { first: '$.data.items[0].id', next: '$._raw_response.meta.next' } })],
      chain('start', 'call'),
    );
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {} });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');
    expect(res.outputs?.['call']).toEqual({
      id: 9,
      items: [{ id: 'x1' }],
      data: { id: 9, items: [{ id: 'x1' }] },
      status_code: 200,
      _status_code: 200,
      _raw_response: { success: true, data: { id: 9, items: [{ id: 'x1' }] }, meta: { next: '/p2' } },
      first: 'x1',
      next: '/p2',
    });
  });

  it('fails the node and the execution on a non-2xx answer, with the upstream status and body', async () => {
    target.on('GET /broken', () => ({ status: 500, body: 'upstream exploded' }));
    const id = nextId();
    const def = definition(
      [startNode(), taskNode('call', 'rest_api_task', { url: target.url('/broken') }), taskNode('after', 'rest_api_task', { url: target.url('/never') }), endNode()],
      chain('start', 'call', 'after', 'end'),
    );
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {}, execution_id: id });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', error: 'HTTP 500: upstream exploded', error_type: 'http_error', failed_node: 'call' });
    expect(res.task_states?.['call']).toMatchObject({ status: 'failed', error: 'HTTP 500: upstream exploded', error_type: 'http_error' });
    expect(res.task_states?.['after']?.status).toBe('pending');
    expect(res.task_states?.['end']?.status).toBe('pending');
    expect(target.hitsOf('/never')).toHaveLength(0);
  });

  describe('refuses private, loopback and non-HTTP destinations before any packet', () => {
    const destinations: [string, (canaryPort: number, targetPort: number) => string][] = [
      ['127.0.0.1 outside the allow list', (c) => `http://127.0.0.1:${c}/ssrf`],
      ['localhost', (c) => `http://localhost:${c}/ssrf`],
      ['decimal 2130706433', (c) => `http://2130706433:${c}/ssrf`],
      ['hex 0x7f000001', (c) => `http://0x7f000001:${c}/ssrf`],
      ['[::1]', (c) => `http://[::1]:${c}/ssrf`],
      ['[::ffff:127.0.0.1]', (c) => `http://[::ffff:127.0.0.1]:${c}/ssrf`],
      ['0.0.0.0', (c) => `http://0.0.0.0:${c}/ssrf`],
      ['cloud metadata 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
      ['a redirect from an allowed host to the canary', (c, t) => `http://127.0.0.1:${t}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${c}/ssrf`)}`],
      ['file://', () => 'file:///etc/passwd'],
    ];

    beforeAll(() => {
      target.on('GET /redirect', (hit) => ({ status: 302, headers: { location: `http://127.0.0.1:${canary.port}/ssrf` }, body: hit.path }));
    });

    it.each(destinations)('%s', async (_name, urlOf) => {
      const id = nextId();
      const def = definition([startNode(), taskNode('call', 'rest_api_task', { url: '{{target}}' })], chain('start', 'call'));
      await h.submit(`wf_${id}`, { workflow_definition: def, inputs: { target: urlOf(canary.port, target.port) } });
      const res = await h.results.next(`wf_${id}`);
      expect(res).toMatchObject({ status: 'failed', error_type: 'configuration_error', failed_node: 'call' });
      expect(res.error).toMatch(/not allowed/);
      expect(canary.hits).toHaveLength(0);
    });

    it('applies the same guard to wait_task endpoints, failing at once', async () => {
      const id = nextId();
      const def = definition([startNode(), taskNode('w', 'wait_task', { endpoint: '{{target}}', watch_field: 'state', poll_interval: 0.05, timeout: 10 })], chain('start', 'w'));
      await h.submit(`wf_${id}`, { workflow_definition: def, inputs: { target: `http://[::1]:${canary.port}/status` } });
      const res = await h.results.next(`wf_${id}`);
      expect(res).toMatchObject({ status: 'failed', error_type: 'configuration_error', failed_node: 'w' });
      expect(canary.hits).toHaveLength(0);
    });

    it('rejects a literal file:// URL when validating the definition', async () => {
      const id = nextId();
      const def = definition([startNode(), taskNode('call', 'rest_api_task', { url: 'file:///etc/passwd' })], chain('start', 'call'));
      await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {} });
      const res = await h.results.next(`wf_${id}`);
      expect(res).toMatchObject({ status: 'failed', error_type: 'validation_error' });
      expect(res.error).toContain('must be an http or https URL');
      expect(canary.hits).toHaveLength(0);
    });
  });

  describe('decision', () => {
    const def = () =>
      definition(
        [
          startNode(),
          taskNode('check', 'decision', { operator: '>=', left_operand: '$.amount', right_operand: 100, true_label: 'big', false_label: 'small' }),
          taskNode('big', 'rest_api_task', { url: target.url('/big') }),
          taskNode('small', 'rest_api_task', { url: target.url('/small') }),
          taskNode('join', 'rest_api_task', { url: target.url('/join'), method: 'POST', body: { path: '{{check.branch}}' } }),
          endNode(),
        ],
        [edge('start', 'check'), edge('check', 'big', 'big'), edge('check', 'small', 'small'), edge('big', 'join'), edge('small', 'join'), edge('join', 'end')],
      );

    it.each([
      [250, 'big', 'small'],
      [20, 'small', 'big'],
    ])('amount %d runs %s, skips %s, and the converging node runs once', async (amount, taken, skipped) => {
      const before = { taken: target.hitsOf(`/${taken}`).length, skipped: target.hitsOf(`/${skipped}`).length, join: target.hitsOf('/join').length };
      const id = nextId();
      await h.submit(`wf_${id}`, { workflow_definition: def(), inputs: { amount } });
      const res = await h.results.next(`wf_${id}`);
      expect(res.status).toBe('completed');
      expect(res.task_states?.[taken]?.status).toBe('completed');
      expect(res.task_states?.[skipped]?.status).toBe('skipped');
      expect(res.outputs?.['check']).toMatchObject({ result: taken === 'big', branch: taken });
      expect(target.hitsOf(`/${taken}`).length - before.taken).toBe(1);
      expect(target.hitsOf(`/${skipped}`).length - before.skipped).toBe(0);
      expect(target.hitsOf('/join').length - before.join).toBe(1);
      expect(JSON.parse(target.hitsOf('/join').at(-1)?.body ?? 'null')).toEqual({ path: taken });
    });
  });

  it('runs independent branches at the same time', async () => {
    // Each branch's endpoint answers only once the other branch's request has arrived:
    // run one after the other, the first would time out.
    const events: string[] = [];
    const arrived = new Set<string>();
    const waiters: (() => void)[] = [];
    const branch = (name: string) => async () => {
      events.push(`arrive:${name}`);
      arrived.add(name);
      waiters.splice(0).forEach((w) => w());
      if (arrived.size < 2) await new Promise<void>((r) => waiters.push(r));
      events.push(`answer:${name}`);
      return { body: { branch: name } };
    };
    target.on('GET /left', branch('left')).on('GET /right', branch('right'));
    const id = nextId();
    const def = definition(
      [
        startNode(),
        taskNode('left', 'rest_api_task', { url: target.url('/left'), timeout: 5 }),
        taskNode('right', 'rest_api_task', { url: target.url('/right'), timeout: 5 }),
        taskNode('join', 'decision', { operator: '==', left_operand: '$.left.branch', right_operand: 'left' }),
        endNode('ok'),
        endNode('ko'),
      ],
      [edge('start', 'left'), edge('start', 'right'), edge('left', 'join'), edge('right', 'join'), edge('join', 'ok', 'true'), edge('join', 'ko', 'false')],
    );
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {} });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');
    expect(events.slice(0, 2).sort()).toEqual(['arrive:left', 'arrive:right']);
    expect(events.slice(2).sort()).toEqual(['answer:left', 'answer:right']);
    expect(res.task_states?.['ok']?.status).toBe('completed');
    expect(res.task_states?.['ko']?.status).toBe('skipped');
  });
});
