import { Client } from 'pg';
import { Gate, HttpTarget, LoopbackSmtp } from '@docflow/testing';
import { uploadText } from './support/document-jobs';
import { peekMessage } from './support/rabbit';
import { Stack } from './support/stack';
import { chain, definition, edge, endNode, ErrorBody, objectSchema, startNode, taskNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(180000);

const MAILBOX = 'workflows@docflow.test';

let stack: Stack;
/** The REST target workflows may call: the only REST_API_ALLOWED_HOSTS entry. */
let target: HttpTarget;
/** Listens on every loopback spelling and is in no allow list: any hit is an SSRF escape. */
let canary: HttpTarget;
let smtp: LoopbackSmtp;
let alice: WorkflowApi;
let bob: WorkflowApi;
let aliceId: number;

beforeAll(async () => {
  [target, canary, smtp] = await Promise.all([HttpTarget.start('127.0.0.1'), HttpTarget.start('::'), LoopbackSmtp.start()]);
  stack = await Stack.start({
    portOffset: 200,
    env: { REST_API_ALLOWED_HOSTS: target.hostPort, SMTP_URL: smtp.url, MAIL_FROM: `Docflow <${MAILBOX}>` },
  });
  [alice, bob] = await Promise.all([WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123'), WorkflowApi.login(stack.api, 'bob@docflow.local', 'Bob#Pass123')]);
  aliceId = (await alice.me()).id;
});

afterAll(async () => {
  await stack?.stop();
  await Promise.all([target?.stop(), canary?.stop(), smtp?.stop()]);
});

/** Creates an activity for `api` after checking that POST /workflows/validate accepts its definition. */
async function activity(api: WorkflowApi, name: string, def: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<number> {
  expect(await api.validate(def)).toEqual({ valid: true, errors: [] });
  return api.createActivity({ name, workflow_definition: def, ...extra });
}

/** A status endpoint for wait_task whose `job.state` walks through `states`, then stays at the last one. */
function statusEndpoint(path: string, states: string[]): void {
  let polls = 0;
  target.on(`GET ${path}`, () => ({ body: { job: { state: states[Math.min(polls++, states.length - 1)] } } }));
}

describe('workflows through the public API, router, RabbitMQ and the processor', () => {
  it('runs a linear REST workflow with templates across nodes and output_mapping', async () => {
    target.on('GET /customers/c-42', () => ({ body: { name: 'Ada Lovelace', tier: 'gold' } }));
    target.on('POST /orders', () => ({ status: 201, body: { success: true, data: { id: 'ord-9', items: [{ sku: 'A1' }, { sku: 'B2' }] } } }));
    const def = definition(
      [
        startNode(),
        taskNode('lookup', 'rest_api_task', { url: target.url('/customers/{{customer_id}}'), headers: { 'X-Execution': 'exec-{{execution_id}}' } }),
        taskNode('order', 'rest_api_task', {
          url: target.url('/orders'),
          method: 'POST',
          body: { customer: '{{lookup.name}}', tier: '{{lookup.data.tier}}', note: 'for {{customer_id}}', user: '{{user_id}}', missing: '{{nowhere.field}}' },
          output_mapping: { order_ref: '$.data.id', first_sku: '$.data.items[0].sku', code: '$._status_code' },
        }),
        endNode(),
      ],
      chain('start', 'lookup', 'order', 'end'),
      objectSchema({ customer_id: { type: 'string' } }),
    );
    const activityId = await activity(alice, 'linear REST', def);
    const id = await alice.start(activityId, { customer_id: 'c-42' });
    const done = await alice.waitFor(id);

    expect(done).toMatchObject({ id, status: 'completed', error: null, failed_node: null });
    const lookupHits = target.hitsOf('/customers/c-42');
    expect(lookupHits).toHaveLength(1);
    expect(lookupHits[0]!.headers['x-execution']).toBe(`exec-${id}`);
    const orderHits = target.hitsOf('/orders');
    expect(orderHits).toHaveLength(1);
    expect(orderHits[0]!.method).toBe('POST');
    // An unresolvable variable stays literal text.
    expect(JSON.parse(orderHits[0]!.body)).toEqual({ customer: 'Ada Lovelace', tier: 'gold', note: 'for c-42', user: aliceId, missing: '{{nowhere.field}}' });

    expect(done.outputs?.['lookup']).toMatchObject({ name: 'Ada Lovelace', tier: 'gold', _status_code: 200 });
    // The {success, data} envelope is unwrapped; the mapped names sit beside the data's fields.
    expect(done.outputs?.['order']).toMatchObject({ id: 'ord-9', order_ref: 'ord-9', first_sku: 'A1', code: 201, data: { id: 'ord-9' } });
    expect(done.outputs?.['order']?.['_raw_response']).toEqual({ success: true, data: { id: 'ord-9', items: [{ sku: 'A1' }, { sku: 'B2' }] } });
    for (const node of ['start', 'lookup', 'order', 'end']) expect(done.task_states[node]?.status).toBe('completed');
    expect(Date.parse(done.completed_at ?? '')).toBeGreaterThanOrEqual(Date.parse(done.started_at ?? ''));
  });

  it('serves a timeline with one entry per executed step, with times and durations', async () => {
    target.on('GET /ping', () => ({ body: { pong: true } }));
    const def = definition(
      [startNode(), taskNode('first', 'rest_api_task', { url: target.url('/ping') }, 'First call'), taskNode('second', 'rest_api_task', { url: target.url('/ping') }, 'Second call'), endNode()],
      chain('start', 'first', 'second', 'end'),
    );
    const id = await alice.start(await activity(alice, 'timeline', def), {});
    expect((await alice.waitFor(id)).status).toBe('completed');

    const tl = await alice.timeline(id);
    expect(tl).toMatchObject({ execution_id: id, status: 'completed', inputs: {} });
    expect(typeof tl.total_duration_seconds).toBe('number');
    expect(tl.timeline.map((s) => s.node_id).sort()).toEqual(['end', 'first', 'second', 'start']);
    const first = tl.timeline.find((s) => s.node_id === 'first')!;
    expect(first).toMatchObject({ step_name: 'First call', step_type: 'rest_api_task', status: 'completed', error: null });
    expect(first.result_summary).toContain('"pong":true');
    for (const step of tl.timeline) {
      expect(step.status).toBe('completed');
      expect(step.duration_seconds).toBeGreaterThanOrEqual(0);
      expect(Date.parse(step.completed_at ?? '')).toBeGreaterThanOrEqual(Date.parse(step.started_at ?? ''));
    }
    const second = tl.timeline.find((s) => s.node_id === 'second')!;
    expect(Date.parse(second.started_at!)).toBeGreaterThanOrEqual(Date.parse(first.completed_at!));
  });

  describe('decision', () => {
    let activityId: number;

    beforeAll(async () => {
      for (const path of ['/big', '/small']) target.on(`GET ${path}`, () => ({ body: { path } }));
      target.on('POST /join', () => ({ body: { joined: true } }));
      const def = definition(
        [
          startNode(),
          taskNode('check', 'decision', { operator: '>=', left_operand: '$.amount', right_operand: 100, true_label: 'big', false_label: 'small' }),
          taskNode('big', 'rest_api_task', { url: target.url('/big') }),
          taskNode('small', 'rest_api_task', { url: target.url('/small') }),
          taskNode('join', 'rest_api_task', { url: target.url('/join'), method: 'POST', body: { branch: '{{check.branch}}', amount: '{{amount}}' } }),
          endNode(),
        ],
        [edge('start', 'check'), edge('check', 'big', 'big'), edge('check', 'small', 'small'), edge('big', 'join'), edge('small', 'join'), edge('join', 'end')],
        objectSchema({ amount: { type: 'number' } }),
      );
      activityId = await activity(alice, 'decision', def);
    });

    it.each([
      [250, 'big', 'small', true],
      [20, 'small', 'big', false],
    ])('amount %d takes %s, skips %s, and the converging node runs once', async (amount, taken, skipped, result) => {
      const before = { taken: target.hitsOf(`/${taken}`).length, skipped: target.hitsOf(`/${skipped}`).length, join: target.hitsOf('/join').length };
      const done = await alice.run(activityId, { amount });
      expect(done.status).toBe('completed');
      expect(done.task_states['check']?.status).toBe('completed');
      expect(done.task_states[taken]?.status).toBe('completed');
      expect(done.task_states[skipped]?.status).toBe('skipped');
      expect(done.task_states['join']?.status).toBe('completed');
      expect(done.task_states['end']?.status).toBe('completed');
      expect(done.outputs?.['check']).toMatchObject({ result, branch: taken, decision: String(result) });
      expect(target.hitsOf(`/${taken}`).length - before.taken).toBe(1);
      expect(target.hitsOf(`/${skipped}`).length - before.skipped).toBe(0);
      expect(target.hitsOf('/join').length - before.join).toBe(1);
      expect(JSON.parse(target.hitsOf('/join').at(-1)!.body)).toEqual({ branch: taken, amount });
    });
  });

  describe('refuses private, loopback and non-HTTP destinations before any packet', () => {
    let activityId: number;
    const destinations: [string, () => string][] = [
      ['127.0.0.1 on a port outside the allow list', () => `http://127.0.0.1:${canary.port}/ssrf`],
      ['localhost', () => `http://localhost:${canary.port}/ssrf`],
      ['decimal 2130706433', () => `http://2130706433:${canary.port}/ssrf`],
      ['hex 0x7f000001', () => `http://0x7f000001:${canary.port}/ssrf`],
      ['[::1]', () => `http://[::1]:${canary.port}/ssrf`],
      ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${canary.port}/ssrf`],
      ['0.0.0.0', () => `http://0.0.0.0:${canary.port}/ssrf`],
      ['cloud metadata 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
      ['a redirect from the allowed host to loopback', () => target.url('/redirect')],
      ['file:///etc/passwd', () => 'file:///etc/passwd'],
    ];

    beforeAll(async () => {
      target.on('GET /redirect', () => ({ status: 302, headers: { location: `http://127.0.0.1:${canary.port}/ssrf` }, body: 'moved' }));
      const def = definition([startNode(), taskNode('call', 'rest_api_task', { url: '{{target}}' }), endNode()], chain('start', 'call', 'end'), objectSchema({ target: { type: 'string' } }));
      activityId = await activity(alice, 'ssrf probe', def);
    });

    it.each(destinations)('%s', async (_name, urlOf) => {
      const done = await alice.run(activityId, { target: urlOf() });
      expect(done).toMatchObject({ status: 'failed', error_type: 'configuration_error', failed_node: 'call' });
      expect(done.error).toMatch(/not allowed/);
      expect(done.task_states['call']).toMatchObject({ status: 'failed', error_type: 'configuration_error' });
      expect(done.task_states['end']?.status).toBe('pending');
      expect(canary.hits).toHaveLength(0);
    });

    it('followed the redirect no further than the allowed host', () => {
      expect(target.hitsOf('/redirect')).toHaveLength(1);
      expect(canary.hits).toHaveLength(0);
    });
  });

  describe('wait_task', () => {
    const waitDef = (path: string, timeout: number) =>
      definition(
        // One second is the shortest poll_interval POST /workflows/validate accepts (README, Limits).
        [startNode(), taskNode('w', 'wait_task', { endpoint: target.url(path), watch_field: 'job.state', poll_interval: 1, timeout }), endNode()],
        chain('start', 'w', 'end'),
      );

    it('completes once the watched field reaches the success value', async () => {
      statusEndpoint('/jobs/ok', ['queued', 'running', 'completed']);
      const done = await alice.run(await activity(alice, 'wait ok', waitDef('/jobs/ok', 10)), {});
      expect(done.status).toBe('completed');
      expect(done.outputs?.['w']).toMatchObject({ status: 'success', final_value: 'completed', response: { job: { state: 'completed' } } });
      expect(typeof done.outputs?.['w']?.['elapsed_seconds']).toBe('number');
      expect(target.hitsOf('/jobs/ok')).toHaveLength(3);
    });

    it('fails the execution with a timeout when the field never settles', async () => {
      statusEndpoint('/jobs/stuck', ['running']);
      const done = await alice.run(await activity(alice, 'wait stuck', waitDef('/jobs/stuck', 0.5)), {});
      expect(done).toMatchObject({ status: 'failed', error_type: 'timeout', failed_node: 'w' });
      expect(done.error).toMatch(/timed out/);
      expect(done.task_states['w']).toMatchObject({ status: 'failed', error_type: 'timeout' });
      expect(done.task_states['end']?.status).toBe('pending');
    });
  });

  it('pauses for user input, refuses a wrong token, and resumes from the waiting node with the right one', async () => {
    target.on('GET /pre', () => ({ body: { value: 41 } }));
    target.on('POST /post', () => ({ body: { stored: true } }));
    const approval = objectSchema({ approved: { type: 'boolean' } });
    const def = definition(
      [
        startNode(),
        taskNode('pre', 'rest_api_task', { url: target.url('/pre') }),
        taskNode('approve', 'user_input_task', { input_schema: approval }),
        taskNode('post', 'rest_api_task', { url: target.url('/post'), method: 'POST', body: { approved: '{{approve.approved}}', pre: '{{pre.value}}' } }),
        endNode(),
      ],
      chain('start', 'pre', 'approve', 'post', 'end'),
    );
    const id = await alice.start(await activity(alice, 'approval', def), {});
    const paused = await alice.waitFor(id);
    expect(paused).toMatchObject({ status: 'awaiting_user_input', awaiting_node: 'approve', awaiting_input_schema: approval });
    expect(paused.correlation_token).toMatch(/^\S{16,}$/);
    expect(Number.isNaN(Date.parse(paused.awaiting_since ?? ''))).toBe(false);
    expect(paused.task_states['pre']?.status).toBe('completed');
    expect(paused.task_states['post']?.status).toBe('pending');
    const token = paused.correlation_token!;

    const wrong = await alice.request<ErrorBody>('POST', `/workflow-executions/${id}/resume`, { correlation_token: `${token.slice(0, -1)}x`, payload: { approved: true } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.name).toBe('BadRequestError');
    const badPayload = await alice.request<ErrorBody>('POST', `/workflow-executions/${id}/resume`, { correlation_token: token, payload: { approved: 'yes' } });
    expect(badPayload.status).toBe(400);
    expect((await alice.status(id)).status).toBe('awaiting_user_input');
    expect(target.hitsOf('/post')).toHaveLength(0);

    const resumed = await alice.request<{ data: { id: number; status: string } }>('POST', `/workflow-executions/${id}/resume`, { correlation_token: token, payload: { approved: true } });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ id, status: 'running' });
    const done = await alice.waitFor(id);
    expect(done.status).toBe('completed');
    expect(done.outputs?.['approve']).toEqual({ approved: true });
    expect(JSON.parse(target.hitsOf('/post')[0]!.body)).toEqual({ approved: true, pre: 41 });
    // Resumed from the waiting node, not from the start.
    expect(target.hitsOf('/pre')).toHaveLength(1);
    expect(target.hitsOf('/post')).toHaveLength(1);

    const again = await alice.request('POST', `/workflow-executions/${id}/resume`, { correlation_token: token, payload: { approved: false } });
    expect(again.status).toBe(409);
  });

  it('submits, by the sweep, the job of a resume whose public API died between its commit and its router call; the run ends once', async () => {
    target.on('POST /approved', () => ({ body: { stored: true } }));
    const approval = objectSchema({ approved: { type: 'boolean' } });
    const def = definition(
      [
        startNode(),
        taskNode('approve', 'user_input_task', { input_schema: approval }),
        taskNode('record', 'rest_api_task', { url: target.url('/approved'), method: 'POST', body: { approved: '{{approve.approved}}' } }),
        endNode(),
      ],
      chain('start', 'approve', 'record', 'end'),
    );
    const id = await alice.start(await activity(alice, 'resume sweep', def), {});
    expect((await alice.waitFor(id)).status).toBe('awaiting_user_input');
    // What the resume route commits before its router call, two minutes ago, by a process killed before that call.
    const pg = new Client({ connectionString: stack.db.url });
    await pg.connect();
    try {
      const committed = await pg.query(
        `UPDATE workflow_executions
            SET status = 'running', correlation_token_hash = NULL, correlation_token_sealed = NULL, awaiting_node = NULL, awaiting_input_schema = NULL,
                awaiting_since = NULL, resume_count = resume_count + 1, job_id = $2, last_sequence = NULL,
                last_progress_at = now() - interval '2 minutes', resumed_at = now() - interval '2 minutes',
                resume_job = jsonb_build_object('node_id', awaiting_node, 'payload', '{"approved": true}'::jsonb), updated_at = now()
          WHERE id = $1 AND status = 'awaiting_user_input'`,
        [id, `wf_${id}_resume_1`],
      );
      expect(committed.rowCount).toBe(1);
    } finally {
      await pg.end();
    }
    // The workers role sweeps every 5 s.
    const done = await alice.waitFor(id, { timeoutMs: 30000 });
    expect(done.status).toBe('completed');
    expect(done.outputs?.['approve']).toEqual({ approved: true });
    expect(target.hitsOf('/approved').map((h) => JSON.parse(h.body) as unknown)).toEqual([{ approved: true }]);
  });

  it('fails an execution past its activity deadline with WORKFLOW_DEADLINE_EXCEEDED', async () => {
    statusEndpoint('/jobs/forever', ['running']);
    const def = definition(
      [startNode(), taskNode('w', 'wait_task', { endpoint: target.url('/jobs/forever'), watch_field: 'job.state', poll_interval: 1, timeout: 60 }), endNode()],
      chain('start', 'w', 'end'),
    );
    const activityId = await activity(alice, 'deadline', def, { execution_deadline_seconds: 1 });
    const done = await alice.run(activityId, {}, 20000);
    expect(done).toMatchObject({ status: 'failed', error_type: 'deadline_exceeded', failed_node: 'w' });
    expect(done.error).toMatch(/^WORKFLOW_DEADLINE_EXCEEDED/);
    expect(done.task_states['end']?.status).toBe('pending');
  });

  it('delivers an email with a templated subject to the SMTP server', async () => {
    const def = definition(
      [startNode(), taskNode('mail', 'email_send_task', { to: ['{{email}}'], subject: 'Invoice {{invoice}} for {{customer}}', body: '<p>Hello {{customer}}, run {{execution_id}}</p>' }), endNode()],
      chain('start', 'mail', 'end'),
      objectSchema({ email: { type: 'string' }, invoice: { type: 'string' }, customer: { type: 'string' } }),
    );
    const before = smtp.received.length;
    const id = await alice.start(await activity(alice, 'mail', def), { email: 'ada@example.com', invoice: 'INV-7', customer: 'Ada' });
    const done = await alice.waitFor(id);
    expect(done.status).toBe('completed');
    expect(done.outputs?.['mail']).toMatchObject({ sent: true, recipients: ['ada@example.com'] });
    await smtp.waitForMessages(before + 1);
    expect(smtp.received).toHaveLength(before + 1);
    const mail = smtp.received[before]!;
    expect(mail.from).toBe(MAILBOX);
    expect(mail.to).toEqual(['ada@example.com']);
    expect(mail.raw).toContain('Subject: Invoice INV-7 for Ada');
    expect(mail.raw).toContain(`Hello Ada, run ${id}`);
  });

  it('queues a job holding only the credential id; the processor opens the credential as the node runs (spec 2.7 rule 3)', async () => {
    const secret = 'sk-e2e-only-in-the-credential-store';
    const credential = await alice.expect<{ data: { id: number } }>(201, 'POST', '/credentials', { data: { name: 'Target key', provider: 'example', fields: { api_key: secret } } });
    target.on('GET /protected', (hit) => (hit.headers['x-api-key'] === secret ? { body: { ok: true } } : { status: 401, body: 'who are you?' }));
    const def = definition(
      [startNode(), taskNode('call', 'rest_api_task', { url: target.url('/protected'), headers: { 'X-Api-Key': '{{api_key}}' }, credential_id: credential.data.id }), endNode()],
      chain('start', 'call', 'end'),
    );
    const activityId = await activity(alice, 'credential', def);

    await stack.stopService('workflow-processor');
    let id: number;
    try {
      id = await alice.start(activityId, {});
      // The message the router published on workflow_queue, as a processor (or the dead-letter queue) would get it.
      const published = await peekMessage(stack.vhost.url, 'workflow_queue');
      expect(published).toContain(`"credential_id":${credential.data.id}`);
      expect(published).not.toContain(secret);
    } finally {
      stack.spawn('workflow-processor');
      await stack.waitForHealth('workflow-processor', 204, 60000);
    }
    const done = await alice.waitFor(id, { timeoutMs: 30000 });
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(done.outputs?.['call']).toMatchObject({ ok: true });
    expect(target.hitsOf('/protected')[0]?.headers['x-api-key']).toBe(secret);
    expect(JSON.stringify(done)).not.toContain(secret);
  });

  it('completes once after the processor is killed with SIGKILL mid-run and restarted', async () => {
    const gate = new Gate();
    target.on('GET /durable/first', () => ({ body: { token: 't-1' } }));
    target.on('GET /durable/held', gate.route({ body: { released: true } }));
    const def = definition(
      [
        startNode(),
        taskNode('first', 'rest_api_task', { url: target.url('/durable/first') }),
        taskNode('held', 'rest_api_task', { url: target.url('/durable/held'), headers: { 'X-Token': '{{first.token}}' }, timeout: 60 }),
        endNode(),
      ],
      chain('start', 'first', 'held', 'end'),
    );
    const id = await alice.start(await activity(alice, 'durable', def), {});
    await target.waitForHits('/durable/held', 1);

    expect(await stack.stopService('workflow-processor', 'SIGKILL')).toBeNull();
    expect((await alice.status(id)).status).toBe('running');
    stack.spawn('workflow-processor');
    await stack.waitForHealth('workflow-processor', 204, 60000);
    // The redelivered job runs the node that never finished again, but not the checkpointed one.
    await target.waitForHits('/durable/held', 2, 30000);
    gate.open();

    const done = await alice.waitFor(id, { timeoutMs: 30000 });
    expect(done.status).toBe('completed');
    expect(done.outputs?.['held']).toMatchObject({ released: true });
    expect(target.hitsOf('/durable/first')).toHaveLength(1);
    expect(target.hitsOf('/durable/held')).toHaveLength(2);
    expect(target.hitsOf('/durable/held')[1]!.headers['x-token']).toBe('t-1');
    const tl = await alice.timeline(id);
    expect(tl.timeline.map((s) => s.node_id).sort()).toEqual(['end', 'first', 'held', 'start']);
    expect(tl.timeline.every((s) => s.status === 'completed')).toBe(true);
    // Still completed, with the same completion time, once everything has settled.
    const later = await alice.status(id);
    expect(later).toMatchObject({ status: 'completed', completed_at: done.completed_at });
  });

  describe('ownership and authentication', () => {
    let activityId: number;
    let executionId: number;

    beforeAll(async () => {
      const def = definition([startNode(), endNode()], chain('start', 'end'));
      activityId = await activity(alice, 'private to alice', def);
      executionId = await alice.createExecution(activityId, {});
    });

    const routes: [string, string, () => string, () => unknown][] = [
      ['GET /activities/:id', 'GET', () => `/activities/${activityId}`, () => undefined],
      ['PUT /activities/:id', 'PUT', () => `/activities/${activityId}`, () => ({ data: { name: 'taken over' } })],
      ['DELETE /activities/:id', 'DELETE', () => `/activities/${activityId}`, () => undefined],
      ['POST /activities/:id/instantiate', 'POST', () => `/activities/${activityId}/instantiate`, () => ({})],
      ['POST /workflow-executions of her activity', 'POST', () => '/workflow-executions', () => ({ data: { activity: activityId, inputs: {} } })],
      ['GET /workflow-executions/:id', 'GET', () => `/workflow-executions/${executionId}`, () => undefined],
      ['GET /workflow-executions/:id/status', 'GET', () => `/workflow-executions/${executionId}/status`, () => undefined],
      ['GET /workflow-executions/:id/timeline', 'GET', () => `/workflow-executions/${executionId}/timeline`, () => undefined],
      ['POST /workflow-executions/:id/execute', 'POST', () => `/workflow-executions/${executionId}/execute`, () => ({})],
      ['POST /workflow-executions/:id/resume', 'POST', () => `/workflow-executions/${executionId}/resume`, () => ({ correlation_token: 'x', payload: {} })],
    ];

    it.each(routes)('bob gets 404 on alice’s %s', async (_name, method, pathOf, bodyOf) => {
      const res = await bob.request<ErrorBody>(method, pathOf(), bodyOf());
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ status: 404, name: 'NotFoundError' });
    });

    it('leaves alice’s activity and execution untouched', async () => {
      const a = await alice.expect<{ data: { name: string } }>(200, 'GET', `/activities/${activityId}`);
      expect(a.data.name).toBe('private to alice');
      expect((await alice.status(executionId)).status).toBe('queued');
    });

    it.each([
      ['GET', '/activities'],
      ['POST', '/workflow-executions'],
      ['GET', '/workflow-executions/1/status'],
      ['POST', '/workflows/validate'],
    ])('answers 401 without a token on %s %s', async (method, path) => {
      const res = await new WorkflowApi(stack.api).request<ErrorBody>(method, path, method === 'GET' ? undefined : {});
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ status: 401, name: 'UnauthorizedError' });
    });
  });

  describe('a run acts only for its owner, whatever its definition says (security: run impersonation)', () => {
    const SECRET_WORD = 'quetzalcoatl';
    let aliceDoc: number;

    beforeAll(async () => {
      aliceDoc = await uploadText(alice, 'alice private notes', `The vault combination is ${SECRET_WORD} 7 7 1.`);
      await alice.expect(202, 'POST', `/documents/${aliceDoc}/rag-enable`);
      const deadline = Date.now() + 30000;
      for (;;) {
        const st = await alice.expect<{ rag_processing_status: string }>(200, 'GET', `/documents/${aliceDoc}/rag-status`);
        if (st.rag_processing_status === 'completed') break;
        if (st.rag_processing_status === 'failed' || Date.now() > deadline) throw new Error(`indexing ended as ${st.rag_processing_status}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    });

    const ragNode = (id: string, taskType: string, body: Record<string, unknown>) => definition([startNode(), taskNode(id, taskType, { body }), endNode()], chain('start', id, 'end'));

    it('refuses a node named after a context variable: validation says so and no execution of it is created', async () => {
      const def = ragNode('user_id', 'rag_query_task', { query: SECRET_WORD });
      const reserved = 'Node user_id: the id "user_id" is reserved for the run\'s context (user_id, execution_id)';
      const checked = await bob.validate(def);
      expect(checked.valid).toBe(false);
      expect(checked.errors).toContain(reserved);
      // Activities are stored as drafts without graph validation (decisions: Activities); the execution's
      // snapshot is validated where it is stored (decisions: Workflow definitions: validated where stored).
      const activityId = await bob.createActivity({ name: 'impersonation', workflow_definition: def });
      const refused = await bob.request<{ error: { status: number; details: { errors: string[] } } }>('POST', '/workflow-executions', { data: { activity: activityId, inputs: {} } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.errors).toContain(reserved);
      const mine = await bob.expect<{ data: { activity: { id: number } }[] }>(200, 'GET', '/workflow-executions');
      expect(mine.data.filter((e) => e.activity.id === activityId)).toEqual([]);
    });

    it('fails a query or an index request in alice’s name with a configuration error, and shows nothing of hers', async () => {
      const query = await bob.run(await activity(bob, 'ask as alice', ragNode('ask', 'rag_query_task', { query: SECRET_WORD, user_id: aliceId })), {});
      expect(query).toMatchObject({ status: 'failed', failed_node: 'ask' });
      expect(query.error).toContain(`user_id ${aliceId} is not the user this workflow runs for`);
      const index = await bob.run(await activity(bob, 'index as alice', ragNode('index', 'rag_enable_task', { document_id: aliceDoc, user_id: aliceId })), {});
      expect(index).toMatchObject({ status: 'failed', failed_node: 'index' });

      // Bob's own query runs, for bob, and finds nothing of alice's.
      const own = await bob.run(await activity(bob, 'ask as bob', ragNode('ask', 'rag_query_task', { query: SECRET_WORD })), {});
      expect(own.status).toBe('completed');
      expect(JSON.stringify(own.outputs)).not.toContain(SECRET_WORD);
      expect(JSON.stringify([query, index])).not.toContain(SECRET_WORD);
    });
  });
});
