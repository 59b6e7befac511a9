import type { MailMessage, SendResult } from '@docflow/mail';
import { silentLogger } from '@docflow/service-kit';
import { resolveTemplates } from '@docflow/workflow';
import { addressListOf, createEmailSendExecutor } from './email-send.executor';
import type { NodeContext } from './executor';

/** The node as the engine hands it over: `config` resolved against `scope`, `rawConfig` as written. */
function ctx(rawConfig: Record<string, unknown>, scope: Record<string, unknown> = {}): NodeContext {
  const config = resolveTemplates(rawConfig, scope) as Record<string, unknown>;
  return {
    executionKey: 'execution:1',
    jobId: 'wf_1',
    nodeId: 'mail',
    nodeType: 'task',
    taskType: 'email_send_task',
    label: 'Mail',
    config,
    rawConfig,
    scope,
    inputs: {},
    signal: new AbortController().signal,
    logger: silentLogger,
  };
}

function recordingMailer(sent: MailMessage[]) {
  return { send: async (m: MailMessage): Promise<SendResult> => (sent.push(m), { messageId: '<m@x>', accepted: m.to, rejected: [] }) };
}

describe('email_send_task', () => {
  it('accepts arrays, JSON array strings and one plain address', () => {
    expect(addressListOf(['a@x.io', ' b@x.io '], 'to')).toEqual(['a@x.io', 'b@x.io']);
    expect(addressListOf('["a@x.io","b@x.io"]', 'to')).toEqual(['a@x.io', 'b@x.io']);
    expect(addressListOf('"Doe, Jane" <jane@x.io>', 'to')).toEqual(['"Doe, Jane" <jane@x.io>']);
    expect(addressListOf(undefined, 'cc')).toEqual([]);
    expect(() => addressListOf('[not json', 'to')).toThrow('to is not a valid JSON array of addresses');
    expect(() => addressListOf([1], 'bcc')).toThrow('bcc[0] must be an email address');
    expect(() => addressListOf(['a@x.io\r\nBcc: evil@x.io'], 'to')).toThrow('to[0] must be an email address');
  });

  it('sends html by default and reports recipients, time and message id', async () => {
    const sent: MailMessage[] = [];
    const run = createEmailSendExecutor({
      mailer: { send: async (m): Promise<SendResult> => (sent.push(m), { messageId: '<m1@x>', accepted: [...m.to, ...(m.cc ?? [])], rejected: [] }) },
      now: () => new Date('2030-01-02T03:04:05.000Z'),
    });
    const out = await run(ctx({ to: 'a@x.io', cc: ['c@x.io'], subject: 'Hi', body: '<b>x</b>' }));
    expect(out).toEqual({ output: { sent: true, recipients: ['a@x.io', 'c@x.io'], timestamp: '2030-01-02T03:04:05.000Z', message_id: '<m1@x>' } });
    expect(sent[0]).toMatchObject({ to: ['a@x.io'], cc: ['c@x.io'], bcc: [], subject: 'Hi', html: '<b>x</b>', text: 'x' });

    await run(ctx({ to: ['a@x.io'], subject: 'Hi', body: 'plain', html: 'false' }));
    expect(sent[1]).toMatchObject({ text: 'plain' });
  });

  it('fails on missing fields, refused recipients and relay errors', async () => {
    const run = createEmailSendExecutor({
      mailer: {
        send: async (m): Promise<SendResult> => {
          if (m.subject === 'relay') throw Object.assign(new Error('Message failed'), { responseCode: 553, response: '553 sender not owned by user' });
          return { messageId: 'x', accepted: [], rejected: m.to };
        },
      },
    });
    await expect(run(ctx({ to: [], subject: 'a', body: 'b' }))).rejects.toMatchObject({ errorType: 'configuration_error', message: 'to must list at least one recipient' });
    await expect(run(ctx({ to: ['a@x.io'], body: 'b' }))).rejects.toMatchObject({ message: 'subject is required' });
    await expect(run(ctx({ to: ['a@x.io'], subject: 's', body: 'b' }))).rejects.toMatchObject({ message: 'Mail relay rejected recipients: a@x.io' });
    await expect(run(ctx({ to: ['a@x.io'], subject: 'relay', body: 'b' }))).rejects.toMatchObject({
      errorType: 'configuration_error',
      message: 'Mail relay rejected the message: 553 sender not owned by user',
    });
  });

  it('refuses more recipients than allowed once templates are resolved (issue #13)', async () => {
    const sent: MailMessage[] = [];
    const run = createEmailSendExecutor({
      mailer: { send: async (m): Promise<SendResult> => (sent.push(m), { messageId: 'x', accepted: m.to, rejected: [] }) },
      maxRecipients: 3,
    });
    const list = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => `u${i}@x.io`));
    await expect(run(ctx({ to: list(2), bcc: list(2), subject: 's', body: 'b' }))).rejects.toMatchObject({
      errorType: 'configuration_error',
      message: 'to, cc and bcc name 4 recipients; at most 3 are allowed',
    });
    expect(sent).toHaveLength(0);
    await run(ctx({ to: list(2), cc: ['c@x.io'], subject: 's', body: 'b' }));
    expect(sent).toHaveLength(1);
  });

  describe('HTML bodies (issue #13, item 15)', () => {
    const hostile = { name: '<a href="https://evil.example">Click</a>', quote: '" onmouseover="steal()', amp: 'Tom & Jerry' };

    it("escapes template values inserted into an HTML body; the author's markup stays", async () => {
      const sent: MailMessage[] = [];
      const run = createEmailSendExecutor({ mailer: recordingMailer(sent) });
      await run(ctx({ to: ['a@x.io'], subject: 'Hi {{amp}}', body: '<p>Hello {{name}}</p><img alt="{{quote}}"><b>{{amp}}</b>' }, hostile));
      expect(sent[0]?.html).toBe('<p>Hello &lt;a href=&quot;https://evil.example&quot;&gt;Click&lt;/a&gt;</p><img alt="&quot; onmouseover=&quot;steal()"><b>Tom &amp; Jerry</b>');
      expect(sent[0]?.subject).toBe('Hi Tom & Jerry');
    });

    it('escapes a body that is one template, and values of any type', async () => {
      const sent: MailMessage[] = [];
      const run = createEmailSendExecutor({ mailer: recordingMailer(sent) });
      await run(ctx({ to: ['a@x.io'], subject: 's', body: '{{name}}' }, hostile));
      expect(sent[0]?.html).toBe('&lt;a href=&quot;https://evil.example&quot;&gt;Click&lt;/a&gt;');
      await run(ctx({ to: ['a@x.io'], subject: 's', body: '<pre>{{obj}}</pre>' }, { obj: { tag: '<i>' } }));
      expect(sent[1]?.html).toBe('<pre>{&quot;tag&quot;:&quot;&lt;i&gt;&quot;}</pre>');
    });

    it('adds a plain-text part made from the HTML', async () => {
      const sent: MailMessage[] = [];
      const run = createEmailSendExecutor({ mailer: recordingMailer(sent) });
      await run(ctx({ to: ['a@x.io'], subject: 's', body: '<h1>Invoice</h1><p>Dear {{name}},</p><p>see <a href="https://docflow.example/i/7">the invoice</a></p>' }, hostile));
      expect(sent[0]?.text).toBe('INVOICE\n\nDear <a href="https://evil.example">Click</a>,\n\nsee the invoice [https://docflow.example/i/7]');
    });

    it('sends a text body as written, unescaped, without an HTML part', async () => {
      const sent: MailMessage[] = [];
      const run = createEmailSendExecutor({ mailer: recordingMailer(sent) });
      await run(ctx({ to: ['a@x.io'], subject: 's', body: 'Hello {{amp}}', html: false }, hostile));
      expect(sent[0]).toMatchObject({ text: 'Hello Tom & Jerry' });
      expect(sent[0]?.html).toBeUndefined();
    });
  });

  describe('sender allow list (MAIL_FROM_ALLOWED)', () => {
    it('sends from an allowed address or domain, display names free', async () => {
      const sent: MailMessage[] = [];
      const run = createEmailSendExecutor({ mailer: recordingMailer(sent), allowedFrom: ['no-reply@docflow.example', '@billing.docflow.example'] });
      await run(ctx({ from: 'Docflow Billing <NO-REPLY@docflow.example>', to: ['a@x.io'], subject: 's', body: 'b' }));
      await run(ctx({ from: 'invoices@billing.docflow.example', to: ['a@x.io'], subject: 's', body: 'b' }));
      await run(ctx({ to: ['a@x.io'], subject: 's', body: 'b' }));
      expect(sent.map((m) => m.from)).toEqual(['Docflow Billing <NO-REPLY@docflow.example>', 'invoices@billing.docflow.example', undefined]);
    });

    it('refuses any other sender as a configuration error, sending nothing', async () => {
      const sent: MailMessage[] = [];
      const run = createEmailSendExecutor({ mailer: recordingMailer(sent), allowedFrom: ['no-reply@docflow.example'] });
      const from = async (value: string) => run(ctx({ from: '{{sender}}', to: ['a@x.io'], subject: 's', body: 'b' }, { sender: value }));
      for (const value of ['ceo@docflow.example', 'no-reply@docflow.example.evil.io', 'a@x.io, no-reply@docflow.example', 'nobody']) {
        await expect(from(value)).rejects.toMatchObject({ errorType: 'configuration_error', message: expect.stringMatching(/^from .* is not an allowed sender \(MAIL_FROM_ALLOWED\)$/) });
      }
      expect(sent).toHaveLength(0);
    });
  });
});
