import request from 'supertest';
import { LoopbackDovecot } from '@docflow/testing';
import { type EventBusKit, openEventBusKit, settledLogs } from './test-support/event-bus-kit';

jest.setTimeout(60000);

const MAILBOX = { user: 'alice@docflow.test', password: 'alice-imap-pass' };

let dovecot: LoopbackDovecot;
let kit: EventBusKit;
let activityId: number;

function message(subject: string, attachment: { name: string; type: string; bytes: Buffer }): string {
  return [
    'From: Sender <sender@example.test>',
    `To: ${MAILBOX.user}`,
    `Subject: ${subject}`,
    'Date: Tue, 01 Apr 2025 10:00:00 +0000',
    `Message-ID: <${subject.replace(/\W/g, '')}@example.test>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Body of ${subject}`,
    '--b1',
    `Content-Type: ${attachment.type}; name="${attachment.name}"`,
    `Content-Disposition: attachment; filename="${attachment.name}"`,
    'Content-Transfer-Encoding: base64',
    '',
    attachment.bytes.toString('base64'),
    '--b1--',
    '',
  ].join('\r\n');
}

async function credential(password: string): Promise<number> {
  const res = await request(kit.app)
    .post('/api/credentials')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: `imap ${password}`, provider: 'imap', fields: { host: dovecot.host, port: String(dovecot.port), secure: 'false', user: MAILBOX.user, password } } });
  expect(res.status).toBe(201);
  return (res.body as { data: { id: number } }).data.id;
}

beforeAll(async () => {
  dovecot = await LoopbackDovecot.start([MAILBOX]);
  kit = await openEventBusKit();
  const res = await request(kit.app)
    .post('/api/activities')
    .set('authorization', kit.alice.auth)
    .send({
      data: {
        name: 'Mail intake',
        workflow_definition: {
          nodes: [
            { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: { label: 'Start', task_type: 'custom_task', config: {} } },
            { id: 'end', type: 'end', position: { x: 200, y: 0 }, data: { label: 'End', task_type: 'custom_task', config: {} } },
          ],
          edges: [{ id: 'e1', source: 'start', target: 'end' }],
          input_schema: { type: 'object', properties: { subject: { type: 'string' } }, required: ['subject'] },
        },
      },
    });
  expect(res.status).toBe(201);
  activityId = (res.body as { data: { id: number } }).data.id;
});

afterAll(async () => {
  await kit?.close();
  await dovecot?.stop();
});

describe('e-mail sources (spec 2.16, staging)', () => {
  it('refuses a credential the server does not take with 400, keeping no source', async () => {
    const wrong = await credential('not-the-password');
    const res = await request(kit.app).post('/api/event-bus/sources').set('authorization', kit.alice.auth).send({ source_type: 'email', email_address: MAILBOX.user, credential_id: wrong });
    expect(res.status).toBe(400);
    expect(((await kit.bed.database.query(`SELECT count(*)::int AS n FROM event_sources WHERE source_type = 'email'`)) as { n: number }[])[0]!.n).toBe(0);
    const missing = await request(kit.app).post('/api/event-bus/sources').set('authorization', kit.alice.auth).send({ source_type: 'email', email_address: MAILBOX.user });
    expect(missing.status).toBe(400);
    const bobs = await request(kit.app).post('/api/event-bus/sources').set('authorization', kit.bob.auth).send({ source_type: 'email', email_address: MAILBOX.user, credential_id: wrong });
    expect(bobs.status).toBe(404);
  });

  it('starts the subscribed workflow for a new message, its attachment stored as a document of the owner', async () => {
    const created = await request(kit.app)
      .post('/api/event-bus/sources')
      .set('authorization', kit.alice.auth)
      .send({ source_type: 'email', email_address: MAILBOX.user, label_ids: ['INBOX'], credential_id: await credential(MAILBOX.password) });
    expect(created.status).toBe(201);
    const source = (created.body as { data: { id: number; is_active: boolean; config: Record<string, unknown> } }).data;
    expect(source).toMatchObject({ is_active: true, config: { email_address: MAILBOX.user, label_ids: ['INBOX'] } });
    expect(JSON.stringify(created.body)).not.toContain(MAILBOX.password);
    const sub = await request(kit.app)
      .post('/api/event-subscriptions')
      .set('authorization', kit.alice.auth)
      .send({ data: { event_source: source.id, activity: activityId, event_types: ['email_received'] } });
    expect(sub.status).toBe(201);

    const jobsBefore = kit.router.jobs.length;
    await dovecot.append(MAILBOX.user, 'INBOX', message('Invoice 7', { name: 'invoice.txt', type: 'text/plain', bytes: Buffer.from('Total: 42 EUR\n') }));
    const [log] = await settledLogs(kit, kit.alice, 1, `source_id=${source.id}`);
    expect(log).toMatchObject({ event_type: 'email_received', status: 'processed', subscriptions_matched: 1 });
    const jobs = kit.router.jobs.slice(jobsBefore);
    expect(jobs).toHaveLength(1);
    const inputs = jobs[0]!.payload['inputs'] as { subject: string; event_source: string; trigger_type: string; attachments: { name: string; document_id: number }[] };
    expect(inputs).toMatchObject({ trigger_type: 'event', event_source: 'email', subject: 'Invoice 7', attachments: [{ name: 'invoice.txt', document_id: expect.any(Number) }] });
    const doc = await request(kit.app).get(`/api/documents/${inputs.attachments[0]!.document_id}`).set('authorization', kit.alice.auth);
    expect(doc.body).toMatchObject({ data: { owner: { id: kit.alice.id }, mime_type: 'text/plain', metadata: { source: 'email_event' } } });
  });
});
