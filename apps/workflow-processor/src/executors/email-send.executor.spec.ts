import type { MailMessage, SendResult } from '@docflow/mail';
import { silentLogger } from '@docflow/service-kit';
import { addressListOf, createEmailSendExecutor } from './email-send.executor';
import type { NodeContext } from './executor';

function ctx(config: Record<string, unknown>): NodeContext {
  return {
    executionKey: 'execution:1', jobId: 'wf_1', nodeId: 'mail', nodeType: 'task', taskType: 'email_send_task', label: 'Mail',
    config, rawConfig: config, scope: {}, inputs: {}, signal: new AbortController().signal, logger: silentLogger,
  };
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
    expect(sent[0]).toMatchObject({ to: ['a@x.io'], cc: ['c@x.io'], bcc: [], subject: 'Hi', html: '<b>x</b>' });
    expect(sent[0]?.text).toBeUndefined();

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
});
