import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { Stack } from './support/stack';
import { ApiResponse, chain, definition, edge, endNode, ErrorBody, objectSchema, startNode, taskNode, WorkflowApi } from './support/workflow-api';

/**
 * Triggers and agents through the whole stack, as a user of the public API:
 * a webhook (JSON and multipart) and a cron schedule start the README's
 * expense workflow (a decision, and an email written to the outbox), and an
 * agent and the Composer answer through the LLM service's offline engine.
 */

jest.setTimeout(120000);

let stack: Stack;
let alice: WorkflowApi;
let bob: WorkflowApi;
let anonymous: WorkflowApi;
/** The README's "Expense routing" activity. */
let expenseActivity: number;

/** README "Your first workflow": amounts over 500 ask finance by email, the rest end at once. */
const expenseDefinition = definition(
  [
    startNode(),
    taskNode('check_amount', 'decision', { operator: '>', left_operand: '$.amount', right_operand: 500, true_label: 'review', false_label: 'auto_approve' }, 'Over 500?'),
    taskNode(
      'notify_finance',
      'email_send_task',
      { to: ['finance@example.com'], subject: 'Expense of {{amount}} from {{requester}} needs review', body: '<p>Execution {{execution_id}}: please review.</p>' },
      'Ask finance',
    ),
    endNode('done', 'Done'),
  ],
  [...chain('start', 'check_amount'), edge('check_amount', 'notify_finance', 'review'), edge('check_amount', 'done', 'auto_approve'), edge('notify_finance', 'done')],
  objectSchema({ amount: { type: 'number' }, requester: { type: 'string' } }),
);

beforeAll(async () => {
  // The scheduler ticks each second, so a schedule made due runs at once.
  stack = await Stack.start({ portOffset: 800, env: { SCHEDULER_INTERVAL_SECONDS: '1' } });
  [alice, bob] = await Promise.all([WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123'), WorkflowApi.login(stack.api, 'bob@docflow.local', 'Bob#Pass123')]);
  anonymous = new WorkflowApi(stack.api);
  expect(await alice.validate(expenseDefinition)).toEqual({ valid: true, errors: [] });
  expenseActivity = await alice.createActivity({ name: 'Expense routing', status: 'active', workflow_definition: expenseDefinition });
});

afterAll(async () => {
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` until `done` holds for its value; throws after timeoutMs with the last value seen. */
async function pollUntil<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15000, pollMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (done(last)) return last;
    await sleep(pollMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
}

interface ExecutionView {
  id: number;
  status: string;
  inputs: Record<string, unknown>;
  results: Record<string, Record<string, unknown>> | null;
  error: string | null;
}

interface TriggerAnswer {
  success: boolean;
  execution_id: number;
  job_id: string;
  message: string;
  polling_token: string;
  uploaded_documents?: { field_name: string; document_id: number; file_url: string; file_name: string; mime_type: string; file_size: number }[];
  documents_count?: number;
}

/**
 * GET /workflow-executions/{id} with a webhook's polling token until the run
 * is terminal. Every 250 ms for at most 12 s: under spec 8's 60 polls a minute.
 */
async function pollWithToken(id: number, token: string): Promise<ExecutionView> {
  const poller = new WorkflowApi(stack.api, token);
  const res = await pollUntil(
    `execution ${id} to finish`,
    () => poller.request<{ data: ExecutionView }>('GET', `/workflow-executions/${id}`),
    (r) => r.status !== 200 || ['completed', 'failed', 'cancelled'].includes(r.body.data.status),
    12000,
    250,
  );
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The subjects of the .eml files in the stack's outbox. */
async function outboxSubjects(): Promise<string[]> {
  const dir = stack.env.OUTBOX_DIR!;
  const files = await readdir(dir).catch(() => [] as string[]);
  const subjects: string[] = [];
  for (const f of files.filter((n) => n.endsWith('.eml'))) {
    const m = /^Subject: (.*)$/m.exec(await readFile(path.join(dir, f), 'utf8'));
    if (m) subjects.push(m[1]!.trim());
  }
  return subjects;
}

/** Sends a trigger as fetch does for a browser form or an ERP: no bearer token, only the secret. */
async function trigger(url: string, secret: string | undefined, body: string | FormData, contentType?: string): Promise<ApiResponse<TriggerAnswer & ErrorBody>> {
  const headers: Record<string, string> = {};
  if (secret !== undefined) headers['x-webhook-secret'] = secret;
  if (contentType) headers['content-type'] = contentType;
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(15000) });
  return { status: res.status, body: (await res.json()) as TriggerAnswer & ErrorBody };
}

describe('webhooks', () => {
  let hook: { id: number; url: string; secret_key: string };

  beforeAll(async () => {
    const created = await alice.expect<{ success: boolean; data: { id: number; url: string; secret_key: string; active: boolean; trigger_count: number } }>(201, 'POST', '/webhooks', {
      activity: expenseActivity,
      name: 'Expenses from the ERP',
    });
    expect(created.success).toBe(true);
    expect(created.data).toMatchObject({ active: true, trigger_count: 0, url: `${stack.api}/webhooks/trigger/${created.data.id}` });
    expect(created.data.secret_key).toMatch(/^[0-9a-f]{64}$/);
    hook = created.data;
  });

  it('refuses a trigger without the secret or with a wrong one, and starts nothing', async () => {
    const json = JSON.stringify({ amount: 1, requester: 'intruder' });
    const missing = await trigger(hook.url, undefined, json, 'application/json');
    expect(missing.status).toBe(401);
    expect(missing.body.error.name).toBe('UnauthorizedError');
    const wrong = await trigger(hook.url, `${hook.secret_key.slice(0, -1)}${hook.secret_key.endsWith('0') ? '1' : '0'}`, json, 'application/json');
    expect(wrong.status).toBe(401);
    const listed = await alice.expect<{ data: { id: number; trigger_count: number }[] }>(200, 'GET', '/webhooks');
    expect(listed.data.find((w) => w.id === hook.id)?.trigger_count).toBe(0);
  });

  it('starts the workflow from a JSON body; the polling token reads the run until it completes', async () => {
    const res = await trigger(hook.url, hook.secret_key, JSON.stringify({ amount: 1200, requester: 'erp' }), 'application/json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, execution_id: expect.any(Number), polling_token: expect.any(String) });
    expect(res.body.uploaded_documents).toBeUndefined();
    const id = res.body.execution_id;

    const done = await pollWithToken(id, res.body.polling_token);
    expect(done).toMatchObject({ id, status: 'completed', error: null, inputs: { amount: 1200, requester: 'erp' } });
    // Over 500: the review branch ran and its email went to the outbox.
    expect(done.results?.['notify_finance']).toMatchObject({ sent: true, recipients: ['finance@example.com'] });
    expect(await outboxSubjects()).toContain('Expense of 1200 from erp needs review');

    // The owner sees the same run; the polling token reads this execution only.
    const status = await alice.status(id);
    expect(status.task_states['notify_finance']?.status).toBe('completed');
    const otherId = await alice.createExecution(expenseActivity, { amount: 1, requester: 'other' });
    const other = await new WorkflowApi(stack.api, res.body.polling_token).request<ErrorBody>('GET', `/workflow-executions/${otherId}`);
    expect(other.status).toBe(404);

    const listed = await alice.expect<{ data: { id: number; trigger_count: number; last_triggered_at: string | null }[] }>(200, 'GET', '/webhooks');
    const mine = listed.data.find((w) => w.id === hook.id);
    expect(mine?.trigger_count).toBe(1);
    expect(Number.isNaN(Date.parse(mine?.last_triggered_at ?? ''))).toBe(false);
  });

  it('stores a multipart file as the owner’s document and passes its id in the inputs', async () => {
    const form = new FormData();
    form.append('amount', '80');
    form.append('requester', 'scanner');
    const text = 'Receipt: 80 EUR, taxi to the airport\n';
    form.append('receipt', new Blob([text], { type: 'text/plain' }), 'receipt.txt');

    const res = await trigger(hook.url, hook.secret_key, form);
    expect(res.status).toBe(200);
    expect(res.body.documents_count).toBe(1);
    const uploaded = res.body.uploaded_documents?.[0];
    expect(uploaded).toMatchObject({ field_name: 'receipt', document_id: expect.any(Number), file_name: 'receipt.txt', mime_type: 'text/plain', file_size: Buffer.byteLength(text) });

    const done = await pollWithToken(res.body.execution_id, res.body.polling_token);
    expect(done.status).toBe('completed');
    // Form fields are read as the input schema's types; the file joins as <field>_document_id and <field>_file_url.
    expect(done.inputs).toMatchObject({ amount: 80, requester: 'scanner', receipt_document_id: uploaded!.document_id, receipt_file_url: uploaded!.file_url });
    expect((done.inputs['_documents'] as Record<string, unknown>)['receipt']).toMatchObject({ document_id: uploaded!.document_id });
    // Under 500: no email.
    expect(done.results?.['notify_finance']).toBeUndefined();
    expect(await outboxSubjects()).not.toContain('Expense of 80 from scanner needs review');

    // The document is alice's (the webhook's owner), not bob's.
    expect((await alice.request('GET', `/documents/${uploaded!.document_id}`)).status).toBe(200);
    expect((await bob.request('GET', `/documents/${uploaded!.document_id}`)).status).toBe(404);
  });
});

describe('workflow schedules', () => {
  interface ScheduleView {
    id: number;
    cron_expression: string;
    is_active: boolean;
    last_run_at: string | null;
    next_run_at: string | null;
    last_status: string;
    last_execution_id: number | null;
    last_error: string | null;
    run_count: number;
    failure_count: number;
  }

  it('runs a due schedule once as its owner and records success', async () => {
    const before = Date.now();
    const created = await alice.expect<{ data: ScheduleView }>(201, 'POST', '/workflow-schedules', {
      data: { name: 'Every minute', activity: expenseActivity, cron_expression: '* * * * *', inputs: { amount: 10, requester: 'cron' } },
    });
    const id = created.data.id;
    expect(created.data).toMatchObject({ cron_expression: '* * * * *', is_active: true, last_status: 'never_run', run_count: 0, failure_count: 0, last_run_at: null });
    const next = Date.parse(created.data.next_run_at ?? '');
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(before + 61000);

    // Due now, without waiting for the minute to turn.
    const db = new Client({ connectionString: stack.db.url });
    await db.connect();
    try {
      const updated = await db.query(`UPDATE workflow_schedules SET next_run_at = now() - interval '5 seconds' WHERE id = $1`, [id]);
      expect(updated.rowCount).toBe(1);
    } finally {
      await db.end();
    }

    const read = async () => (await alice.expect<{ data: ScheduleView }>(200, 'GET', `/workflow-schedules/${id}`)).data;
    const started = await pollUntil('the schedule to start a run', read, (s) => s.run_count > 0, 10000);
    // Paused at once so that the next minute's tick cannot add a second run while this one settles.
    const paused = await alice.expect<{ data: ScheduleView }>(200, 'PUT', `/workflow-schedules/${id}`, { data: { is_active: false } });
    expect(paused.data).toMatchObject({ is_active: false, next_run_at: null });
    expect(started.last_execution_id).toEqual(expect.any(Number));
    expect(Date.parse(started.last_run_at ?? '')).toBeGreaterThanOrEqual(before - 1000);

    const settled = await pollUntil('the schedule’s run to settle', read, (s) => !['running', 'queued'].includes(s.last_status), 15000);
    expect(settled).toMatchObject({ last_status: 'success', run_count: 1, failure_count: 0, last_error: null, last_execution_id: started.last_execution_id });

    // The run is alice's, with the schedule's inputs: under 500, the email was skipped.
    const run = await alice.status(settled.last_execution_id!);
    expect(run.status).toBe('completed');
    expect(run.task_states['check_amount']?.status).toBe('completed');
    expect(run.task_states['notify_finance']?.status).toBe('skipped');
    const summary = await alice.expect<{ data: ExecutionView }>(200, 'GET', `/workflow-executions/${settled.last_execution_id}`);
    expect(summary.data.inputs).toEqual({ amount: 10, requester: 'cron' });
  });
});

describe('agents', () => {
  interface ChatAnswer {
    answer: string;
    trace: unknown[];
    tools_used: string[];
    session_id: string;
  }
  interface MessagesView {
    session_id: string;
    messages: { role: string; content: string }[];
  }
  let agent: { id: number; slug: string; api_key: string };

  beforeAll(async () => {
    const created = await alice.expect<{ data: { id: number; slug: string; api_key: string; name: string } }>(201, 'POST', '/agents', {
      data: { name: 'HR helper', goal: 'Answer HR questions from the handbook', available_tools: ['search_documents'] },
    });
    expect(created.data.name).toBe('HR helper');
    expect(created.data.slug).toMatch(/\S/);
    expect(created.data.api_key).toMatch(/\S{16,}/);
    agent = created.data;
  });

  const chat = (slug: string, body: unknown, headers: Record<string, string>, api = anonymous) =>
    api.request<ChatAnswer & ErrorBody>('POST', `/agents/${encodeURIComponent(slug)}/public-chat`, body, headers);

  it('refuses public chat without a key, or with a wrong one', async () => {
    expect((await chat(agent.slug, { query: 'hello' }, {})).status).toBe(401);
    const wrong = await chat(agent.slug, { query: 'hello' }, { 'x-agent-key': `${agent.api_key}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.name).toBe('UnauthorizedError');
    // Another user's token is not the owner's.
    expect((await chat(agent.slug, { query: 'hello' }, {}, bob)).status).toBe(401);
  });

  it('answers with the agent key, and keeps the turns in the owner’s conversation', async () => {
    const query = 'How many vacation days?';
    const first = await chat(agent.slug, { query }, { 'x-agent-key': agent.api_key });
    expect(first.status).toBe(200);
    expect(typeof first.body.answer).toBe('string');
    expect(first.body.answer.trim()).not.toBe('');
    expect(Array.isArray(first.body.trace)).toBe(true);
    expect(first.body.trace.length).toBeGreaterThanOrEqual(1);
    // The offline local engine never calls tools.
    expect(first.body.tools_used).toEqual([]);
    expect(first.body.session_id).toMatch(/\S{8,}/);
    const sessionId = first.body.session_id;

    const messages = await alice.expect<{ data: MessagesView }>(200, 'GET', `/agent-conversations/${encodeURIComponent(sessionId)}/messages`);
    expect(messages.data.session_id).toBe(sessionId);
    expect(messages.data.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', query],
      ['assistant', first.body.answer],
    ]);

    // A second turn naming the session continues it.
    const second = await chat(agent.slug, { query: 'And sick days?', session_id: sessionId }, { 'x-agent-key': agent.api_key });
    expect(second.status).toBe(200);
    expect(second.body.session_id).toBe(sessionId);
    const after = await alice.expect<{ data: MessagesView }>(200, 'GET', `/agent-conversations/${encodeURIComponent(sessionId)}/messages`);
    expect(after.data.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(after.data.messages[2]?.content).toBe('And sick days?');

    // Bob cannot read alice's conversation.
    expect((await bob.request('GET', `/agent-conversations/${encodeURIComponent(sessionId)}/messages`)).status).toBe(404);
  });

  it('lets any signed-in user chat with the Composer, and no one else', async () => {
    const res = await chat('composer', { query: 'Which task types can a workflow use?' }, {}, alice);
    expect(res.status).toBe(200);
    expect(typeof res.body.answer).toBe('string');
    expect(res.body.answer.trim()).not.toBe('');
    expect(Array.isArray(res.body.tools_used)).toBe(true);
    expect(res.body.session_id).toMatch(/\S{8,}/);
    const messages = await alice.expect<{ data: MessagesView }>(200, 'GET', `/agent-conversations/${encodeURIComponent(res.body.session_id)}/messages`);
    expect(messages.data.messages.map((m) => m.role)).toEqual(['user', 'assistant']);

    expect((await chat('composer', { query: 'hello' }, {})).status).toBe(401);
  });
});
