import { NodeRunsRepository } from './checkpoints/node-runs.repository';
import { CountingCheckpoints } from './test-support/counting-checkpoints';
import { chain, definition, edge, endNode, startNode, taskNode } from './test-support/definitions';
import { HttpTarget, LoopbackSmtp, mimeParts } from '@docflow/testing';
import { ProcessorHarness, type ProcessorInstance } from './test-support/processor-harness';

jest.setTimeout(30000);

const MAILBOX = 'workflows@docflow.test';

/** wait, email, pause and resume, deadline, invalid jobs and redelivery, through the broker with real checkpoints. */
describe('workflow processor: waits, mail, pauses and durability (RabbitMQ + PostgreSQL)', () => {
  let h: ProcessorHarness;
  let target: HttpTarget;
  let smtp: LoopbackSmtp;
  let main: ProcessorInstance;
  let counting: CountingCheckpoints;
  let env: Record<string, string>;
  let seq = 500;
  const nextId = () => (seq += 1);

  beforeAll(async () => {
    [target, smtp] = await Promise.all([HttpTarget.start(), LoopbackSmtp.start({ mailbox: MAILBOX })]);
    h = await ProcessorHarness.start('wfp_durable');
    // someone@elsewhere.example passes the processor's sender list so that the relay's own refusal is tested.
    env = {
      REST_API_ALLOWED_HOSTS: `127.0.0.1:${target.port}`,
      SMTP_URL: smtp.url,
      MAIL_FROM: `Docflow <${MAILBOX}>`,
      MAIL_FROM_ALLOWED: `${MAILBOX},someone@elsewhere.example`,
    };
    counting = new CountingCheckpoints(new NodeRunsRepository(h.ds));
    main = await h.startProcessor(env, counting);
  });

  afterAll(async () => {
    await h?.stop();
    await Promise.all([target?.stop(), smtp?.stop()]);
  });

  /** A status endpoint whose watched field follows `states`, then stays at the last one. */
  function statusEndpoint(path: string, states: string[]): void {
    let polls = 0;
    target.on(`GET ${path}`, () => ({ body: { job: { state: states[Math.min(polls++, states.length - 1)] } } }));
  }

  const waitNode = (id: string, path: string, extra: Record<string, unknown> = {}) =>
    taskNode(id, 'wait_task', { endpoint: target.url(path), watch_field: 'job.state', poll_interval: 0.05, timeout: 5, ...extra });

  it('wait_task polls until the watched field succeeds; results are sequenced and progress never follows the final message', async () => {
    statusEndpoint('/status/ok', ['queued', 'running', 'completed']);
    const id = nextId();
    await h.submit(`wf_${id}`, { workflow_definition: definition([startNode(), waitNode('w', '/status/ok'), endNode()], chain('start', 'w', 'end')), inputs: {} });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');
    expect(res.outputs?.['w']).toMatchObject({ status: 'success', final_value: 'completed', response: { job: { state: 'completed' } } });
    expect(typeof (res.outputs?.['w'] as { elapsed_seconds: unknown }).elapsed_seconds).toBe('number');
    expect(target.hitsOf('/status/ok')).toHaveLength(3);

    const all = h.results.all(`wf_${id}`);
    expect(all.at(-1)?.status).toBe('completed');
    expect(all.slice(0, -1).every((m) => m.status === 'processing')).toBe(true);
    expect(all.some((m) => m.status === 'processing' && m.task_states?.['w']?.status === 'running')).toBe(true);
    const sequences = all.map((m) => m.sequence as number);
    for (let i = 1; i < sequences.length; i += 1) expect(sequences[i]).toBeGreaterThan(sequences[i - 1] as number);
  });

  it('wait_task fails with status failure and error_type timeout when the field never settles', async () => {
    statusEndpoint('/status/stuck', ['running']);
    const id = nextId();
    await h.submit(`wf_${id}`, { workflow_definition: definition([startNode(), waitNode('w', '/status/stuck', { timeout: 0.3 })], chain('start', 'w')), inputs: {} });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', error_type: 'timeout', failed_node: 'w' });
    expect(res.error).toBe('wait_task timed out after 0.3 s (job.state was "running")');
    expect(res.task_states?.['w']).toMatchObject({ status: 'failed', error_type: 'timeout', result: { status: 'failure', final_value: 'running' } });
  });

  it('wait_task fails when the watched field reaches a failure value', async () => {
    statusEndpoint('/status/bad', ['running', 'error']);
    const id = nextId();
    await h.submit(`wf_${id}`, { workflow_definition: definition([startNode(), waitNode('w', '/status/bad')], chain('start', 'w')), inputs: {} });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', failed_node: 'w', error: 'wait_task: job.state reached the failure value "error"' });
    expect(res.task_states?.['w']?.result).toMatchObject({ status: 'failure', final_value: 'error' });
  });

  it('sends an email through the SMTP relay with templated recipients and subject', async () => {
    target.on('GET /customer', () => ({ body: { name: 'Ada Lovelace', emails: ['ada@example.com', 'ops@example.com'] } }));
    const id = nextId();
    const def = definition(
      [
        startNode(),
        taskNode('lookup', 'rest_api_task', { url: target.url('/customer') }),
        taskNode('mail', 'email_send_task', { to: '{{lookup.emails}}', cc: '{{manager}}', subject: 'Order {{order_id}} for {{lookup.name}}', body: '<p>Thanks, {{lookup.name}}</p>' }),
        endNode(),
      ],
      chain('start', 'lookup', 'mail', 'end'),
    );
    const before = smtp.received.length;
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: { order_id: 'A-17', manager: 'boss@example.com' } });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');
    expect(res.error).toBeUndefined();
    expect(res.outputs?.['mail']).toMatchObject({ sent: true, recipients: ['ada@example.com', 'ops@example.com', 'boss@example.com'] });
    expect(typeof (res.outputs?.['mail'] as { message_id: unknown }).message_id).toBe('string');
    const mail = smtp.received[before];
    expect(mail?.from).toBe(MAILBOX);
    expect(mail?.to.sort()).toEqual(['ada@example.com', 'boss@example.com', 'ops@example.com']);
    expect(mail?.raw).toContain('Subject: Order A-17 for Ada Lovelace');
    expect(mail?.raw).toContain('text/html');
  });

  it('fails the email node when the relay refuses the sender', async () => {
    const id = nextId();
    const def = definition([startNode(), taskNode('mail', 'email_send_task', { from: 'someone@elsewhere.example', to: ['a@example.com'], subject: 'Hi', body: 'x' })], chain('start', 'mail'));
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {} });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', error_type: 'configuration_error', failed_node: 'mail' });
    expect(res.error).toMatch(/^Mail relay rejected the message: .*not owned by the authenticated user/);
  });

  it('escapes template values in the HTML body and adds a plain-text part (issue #13)', async () => {
    target.on('GET /profile', () => ({ body: { name: '<a href="https://evil.example/login">Renew your password</a>' } }));
    const id = nextId();
    const def = definition(
      [
        startNode(),
        taskNode('profile', 'rest_api_task', { url: target.url('/profile') }),
        taskNode('mail', 'email_send_task', { to: ['ada@example.com'], subject: 'Hello', body: '<h1>Welcome</h1><p>Hello {{profile.name}}, from {{company}}</p>' }),
        endNode(),
      ],
      chain('start', 'profile', 'mail', 'end'),
    );
    const before = smtp.received.length;
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: { company: 'Smith & "Sons"' } });
    expect((await h.results.next(`wf_${id}`)).status).toBe('completed');
    await smtp.waitForMessages(before + 1);
    const parts = mimeParts(smtp.received[before]!.raw);
    expect(parts.map((p) => p.contentType)).toEqual(['text/plain', 'text/html']);
    expect(parts[1]?.body).toBe('<h1>Welcome</h1><p>Hello &lt;a href=&quot;https://evil.example/login&quot;&gt;Renew your password&lt;/a&gt;, from Smith &amp; &quot;Sons&quot;</p>');
    expect(parts[1]?.body).not.toContain('<a ');
    // The text part is text: the value reads as written, wrapped at 78 columns.
    expect(parts[0]?.body.replace(/\r\n/g, '\n')).toBe('WELCOME\n\nHello <a href="https://evil.example/login">Renew your password</a>, from Smith\n& "Sons"');
  });

  it('refuses a sender outside MAIL_FROM_ALLOWED before the relay sees anything', async () => {
    const id = nextId();
    const def = definition([startNode(), taskNode('mail', 'email_send_task', { from: '{{sender}}', to: ['a@example.com'], subject: 'Hi', body: 'x' })], chain('start', 'mail'));
    const before = smtp.received.length;
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: { sender: 'IT Support <it@corp.example>' } });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', error_type: 'configuration_error', failed_node: 'mail', error: 'from "IT Support <it@corp.example>" is not an allowed sender (MAIL_FROM_ALLOWED)' });
    expect(smtp.received).toHaveLength(before);
  });

  describe('user input', () => {
    const def = () =>
      definition(
        [
          startNode(),
          taskNode('pre', 'rest_api_task', { url: target.url('/pre') }),
          taskNode('approve', 'user_input_task', { input_schema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] } }),
          taskNode('post', 'rest_api_task', { url: target.url('/post'), method: 'POST', body: { approved: '{{approve.approved}}', pre: '{{pre.value}}' } }),
          endNode(),
        ],
        chain('start', 'pre', 'approve', 'post', 'end'),
      );

    it('pauses with a correlation token, then a resume job completes it without re-running earlier nodes', async () => {
      target.on('GET /pre', () => ({ body: { value: 41 } }));
      const preBefore = target.hitsOf('/pre').length;
      const id = nextId();
      await h.submit(`wf_${id}`, { workflow_definition: def(), inputs: {}, execution_id: id });
      const paused = await h.results.next(`wf_${id}`);
      expect(paused).toMatchObject({
        status: 'awaiting_user_input',
        execution_id: id,
        awaiting_node: 'approve',
        awaiting_input_schema: { type: 'object', required: ['approved'] },
        outputs: { pre: { value: 41 } },
      });
      expect(paused.correlation_token).toMatch(/^[0-9a-f]{64}$/);
      expect(Number.isNaN(Date.parse(paused.awaiting_since ?? ''))).toBe(false);
      expect(paused.task_states?.['pre']?.status).toBe('completed');
      expect(paused.task_states?.['approve']?.status).toBe('running');
      expect(paused.task_states?.['post']?.status).toBe('pending');

      await h.submit(`wf_${id}_resume_1`, { workflow_definition: def(), inputs: {}, execution_id: id, resume: { node_id: 'approve', payload: { approved: true } } });
      const done = await h.results.next(`wf_${id}_resume_1`);
      expect(done).toMatchObject({ status: 'completed', execution_id: id, outputs: { approve: { approved: true }, pre: { value: 41 } } });
      expect(target.hitsOf('/pre').length - preBefore).toBe(1);
      expect(JSON.parse(target.hitsOf('/post').at(-1)?.body ?? 'null')).toEqual({ approved: true, pre: 41 });
    });

    it('refuses a resume for a node that is not awaiting input', async () => {
      const id = nextId();
      await h.submit(`wf_${id}_resume_1`, { workflow_definition: def(), inputs: {}, resume: { node_id: 'approve', payload: { approved: false } } });
      const res = await h.results.next(`wf_${id}_resume_1`);
      expect(res).toMatchObject({ status: 'failed', execution_id: id, error_type: 'validation_error', error: 'Cannot resume: node approve is not awaiting user input in this execution' });
    });
  });

  it('fails a run that passes its deadline, naming the node that was running', async () => {
    statusEndpoint('/status/forever', ['running']);
    const id = nextId();
    const deadline = new Date(Date.now() + 700).toISOString();
    await h.submit(`wf_${id}`, {
      workflow_definition: definition([startNode(), waitNode('w', '/status/forever', { timeout: 60 }), endNode()], chain('start', 'w', 'end')),
      inputs: {},
      deadline_at: deadline,
    });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', error_type: 'deadline_exceeded', failed_node: 'w', error: `WORKFLOW_DEADLINE_EXCEEDED: execution exceeded its deadline of ${deadline}` });
    expect(res.task_states?.['w']).toMatchObject({ status: 'failed', error_type: 'deadline_exceeded' });
    expect(res.task_states?.['end']?.status).toBe('pending');
  });

  it('answers an invalid payload or definition with a failed result instead of dead-lettering it', async () => {
    const a = nextId();
    const b = nextId();
    await h.submit(`wf_${a}`, { inputs: { x: 1 } });
    const cyclic = definition([taskNode('x', 'rest_api_task', { url: target.url('/x') }), taskNode('y', 'decision', {})], [edge('x', 'y'), edge('y', 'x')]);
    await h.submit(`wf_${b}`, { workflow_definition: cyclic, inputs: {} });
    const [ra, rb] = await Promise.all([h.results.next(`wf_${a}`), h.results.next(`wf_${b}`)]);
    expect(ra).toMatchObject({ status: 'failed', execution_id: a, error_type: 'validation_error', outputs: {}, task_states: {} });
    expect(ra.error).toContain('Invalid workflow job payload: workflow_definition');
    expect(rb).toMatchObject({ status: 'failed', error_type: 'validation_error' });
    expect(rb.error).toMatch(/^Invalid workflow definition: .*Cycles are not allowed.*Decision node y must have exactly 2 outgoing edges/);
    expect(await h.deadLettered()).toBe(0);
  });

  it('runs a start → decision → end workflow without touching the database', async () => {
    const id = nextId();
    const def = definition(
      [startNode(), taskNode('d', 'decision', { operator: 'contains', left_operand: '$.tags', right_operand: 'vip' }), endNode('vip'), endNode('regular')],
      [edge('start', 'd'), edge('d', 'vip', 'true'), edge('d', 'regular', 'false')],
    );
    const before = counting.calls;
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: { tags: ['new', 'vip'] } });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');
    expect(res.task_states?.['vip']?.status).toBe('completed');
    expect(res.task_states?.['regular']?.status).toBe('skipped');
    expect(counting.calls - before).toBe(0);
  });

  it('continues a redelivered job from its checkpoints: a completed node is not called again', async () => {
    target.on('GET /second', () => ({ body: { ok: true } }));
    const id = nextId();
    // What a processor that crashed right after checkpointing `first` left behind.
    await new NodeRunsRepository(h.ds).saveTerminal(`execution:${id}`, `wf_${id}`, {
      nodeId: 'first',
      taskType: 'rest_api_task',
      status: 'completed',
      output: { token: 'from-checkpoint' },
      error: null,
      errorType: null,
      correlationToken: null,
      startedAt: new Date(),
      completedAt: new Date(),
      cost: null,
    });
    const def = definition(
      [
        startNode(),
        taskNode('first', 'rest_api_task', { url: target.url('/first') }),
        taskNode('second', 'rest_api_task', { url: target.url('/second'), headers: { 'X-Token': '{{first.token}}' } }),
        endNode(),
      ],
      chain('start', 'first', 'second', 'end'),
    );
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {} });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');
    expect(target.hitsOf('/first')).toHaveLength(0);
    expect(target.hitsOf('/second').at(-1)?.headers['x-token']).toBe('from-checkpoint');
    expect(res.outputs?.['first']).toEqual({ token: 'from-checkpoint' });
  });

  it('survives a processor dying mid-run: another one takes the job over and finishes it once', async () => {
    target.on('GET /crash-first', () => ({ body: { step: 1 } }));
    let release = false;
    target.on('GET /crash-status', () => ({ body: { job: { state: release ? 'completed' : 'running' } } }));
    // Only `doomed` consumes while the run starts.
    await main.stop(500);
    const doomed = await h.startProcessor(env);
    const id = nextId();
    const def = definition(
      [startNode(), taskNode('first', 'rest_api_task', { url: target.url('/crash-first') }), waitNode('w', '/crash-status', { timeout: 20 }), endNode()],
      chain('start', 'first', 'w', 'end'),
    );
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {} });
    await target.waitForHits('/crash-status', 1);

    const survivor = await h.startProcessor(env);
    await doomed.stop(0); // its unacknowledged job goes back to the queue; nothing is published for it
    const pollsBefore = target.hitsOf('/crash-status').length;
    await target.waitForHits('/crash-status', pollsBefore + 1);
    release = true;

    const res = await h.results.next(`wf_${id}`, ['completed', 'failed']);
    expect(res.status).toBe('completed');
    expect(target.hitsOf('/crash-first')).toHaveLength(1);
    expect(
      h.results
        .all(`wf_${id}`)
        .filter((m) => m.status !== 'processing')
        .map((m) => m.status),
    ).toEqual(['completed']);
    await survivor.stop(500);
  });

  it('lets a run in progress finish when stopped gracefully within the drain time', async () => {
    statusEndpoint('/status/drain', ['running', 'running', 'running', 'completed']);
    const drainer = await h.startProcessor(env);
    const id = nextId();
    await h.submit(`wf_${id}`, { workflow_definition: definition([startNode(), waitNode('w', '/status/drain')], chain('start', 'w')), inputs: {} });
    await target.waitForHits('/status/drain', 1);
    await drainer.stop(10000);
    // The result was published before the stop returned, and the job was acked (not redelivered).
    expect(h.results.all(`wf_${id}`).at(-1)?.status).toBe('completed');
    expect(target.hitsOf('/status/drain')).toHaveLength(4);
    expect((await h.probe.checkQueue('workflow_queue')).messageCount).toBe(0);
  });
});
