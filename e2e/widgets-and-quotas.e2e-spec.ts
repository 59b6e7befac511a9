import { LoopbackSmtp } from '@docflow/testing';
import { Stack } from './support/stack';
import { chain, definition, endNode, type ErrorBody, startNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(180000);

/** Issue 18, items 3, 4 and 8 on the built services: quotas with their mail, prompt publishing, a chat widget's CORS and stream. */
let stack: Stack;
let smtp: LoopbackSmtp;
let admin: WorkflowApi;
let alice: WorkflowApi;

beforeAll(async () => {
  smtp = await LoopbackSmtp.start();
  stack = await Stack.start({ portOffset: 50, env: { SMTP_URL: smtp.url } });
  [admin, alice] = await Promise.all([WorkflowApi.login(stack.api, 'admin@docflow.local', 'Admin#Pass123'), WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123')]);
});

afterAll(async () => {
  await stack?.stop();
  await smtp?.stop();
});

describe('issue 18 on the running platform', () => {
  it('counts executions against the quota an administrator set: the one past it is 429, and the user is mailed once', async () => {
    const me = await alice.me();
    await admin.expect(200, 'PUT', `/admin/users/${me.id}/quotas`, { data: { executions_monthly: 1 } });
    const activity = await alice.createActivity({ name: 'quota probe', workflow_definition: definition([startNode(), endNode()], chain('start', 'end')) });
    expect(await alice.run(activity, {})).toMatchObject({ status: 'completed' });

    const second = await alice.createExecution(activity, {});
    const refused = await alice.request<ErrorBody>('POST', `/workflow-executions/${second}/execute`, { inputs: {} });
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toMatchObject({ code: 'quota_exceeded', quota: 'executions', used: 1, limit: 1 });

    const mail = await smtp.nextMail(10000);
    expect(mail.to).toEqual(['alice@docflow.local']);
    expect(mail.raw).toContain('Subject: Docflow: you have used 100% of your monthly workflow executions');
    expect((await alice.expect<{ quota_warnings: string[] }>(200, 'GET', '/users/me')).quota_warnings).toEqual(['executions']);
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.received.filter((m) => m.to.includes('alice@docflow.local'))).toHaveLength(1);
    const audit = await admin.expect<{ data: { action: string }[] }>(200, 'GET', '/admin/audit-log?action=quota.update');
    expect(audit.data.length).toBeGreaterThanOrEqual(1);
  });

  it('blocks publishing a prompt with a secret, and publishes it on an administrator’s override', async () => {
    const created = await alice.expect<{ id: number }>(201, 'POST', '/prompts', {
      data: { title: 'Leaky', type: 'extraction', level: 'user', tasks: ['Call with api_key=abcd1234efgh'], outputFormat: 'json', exampleOutput: { total: 1 } },
    });
    const blocked = await alice.request<ErrorBody>('POST', `/prompts/${created.id}/publish`, {});
    expect(blocked.status).toBe(422);
    expect(JSON.stringify(blocked.body)).not.toContain('abcd1234efgh');
    const published = await admin.expect<{ overridden: boolean; data: { published: boolean } }>(200, 'POST', `/prompts/${created.id}/publish`, {
      override_reason: 'A documented test key, not a real one',
    });
    expect(published).toMatchObject({ overridden: true, data: { published: true } });
  });

  it('lets a page of an allowed site preflight and read a chatbot’s answer as server-sent events', async () => {
    const bot = await alice.expect<{ data: { slug: string; api_key: string } }>(201, 'POST', '/chatbots', { data: { name: 'Widget bot', allowed_origins: ['widgets.example.com'] } });
    const chatUrl = `${stack.api}/chatbots/${bot.data.slug}/chat`;
    const pre = await fetch(chatUrl, {
      method: 'OPTIONS',
      headers: { Origin: 'https://widgets.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-chatbot-key' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://widgets.example.com');
    expect(pre.headers.get('access-control-allow-headers')).toContain('X-Chatbot-Key');
    const denied = await fetch(chatUrl, { method: 'OPTIONS', headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'POST' } });
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();

    const res = await fetch(chatUrl, {
      method: 'POST',
      headers: { Origin: 'https://widgets.example.com', 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-Chatbot-Key': bot.data.api_key },
      body: JSON.stringify({ query: 'Hello?', session_id: 'widget-1' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('https://widgets.example.com');
    const text = await res.text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe('start');
    expect(events[events.length - 1]).toBe('done');
    expect(text).toContain('"session_id":"widget-1"');
  });
});
