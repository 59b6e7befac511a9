import { emailEventPayload, emailWorkflowInputs, parseEmailMessage } from './email-event';
import { parseEmailSourceSettings } from './email-source-config';

const location = { sourceId: 3, emailAddress: 'alice@docflow.test', mailbox: 'INBOX', uidValidity: '77', uid: 12 };

const raw = Buffer.from(
  [
    'From: "Bob" <bob@example.test>',
    'To: alice@docflow.test, ops@docflow.test',
    'Subject: =?UTF-8?Q?Rechnung_f=C3=BCr_M=C3=A4rz?=',
    'Date: Tue, 01 Apr 2025 10:00:00 +0200',
    'Message-ID: <m1@example.test>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="x"',
    '',
    '--x',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'See attached.',
    '--x',
    'Content-Type: application/pdf',
    'Content-Disposition: attachment; filename="rechnung.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('%PDF-1.4 test').toString('base64'),
    '--x',
    'Content-Type: text/csv',
    'Content-Disposition: attachment',
    '',
    'a,b',
    '--x--',
    '',
  ].join('\r\n'),
);

describe('parseEmailMessage', () => {
  it('reads headers, text and every attachment with its bytes', async () => {
    const event = await parseEmailMessage(raw, location);
    expect(event).toMatchObject({
      eventType: 'email_received',
      from: 'bob@example.test',
      to: ['alice@docflow.test', 'ops@docflow.test'],
      subject: 'Rechnung für März',
      date: '2025-04-01T08:00:00.000Z',
      messageId: '<m1@example.test>',
      oversized: false,
    });
    expect(event.text.trim()).toBe('See attached.');
    expect(event.attachments.map((a) => [a.name, a.mimeType, a.size])).toEqual([
      ['rechnung.pdf', 'application/pdf', 13],
      ['attachment-2', 'text/csv', 3],
    ]);
    expect(event.attachments[0]!.content.toString()).toBe('%PDF-1.4 test');
  });

  it('gives the same message the same event id, and another UID another one', async () => {
    const a = await parseEmailMessage(raw, location);
    const b = await parseEmailMessage(raw, location);
    const c = await parseEmailMessage(raw, { ...location, uid: 13 });
    expect(a.eventId).toBe(b.eventId);
    expect(c.eventId).not.toBe(a.eventId);
  });

  it('builds a payload without bytes and inputs that name the stored documents', async () => {
    const event = await parseEmailMessage(raw, location);
    const payload = emailEventPayload(event);
    expect(payload).toMatchObject({
      event_type: 'email_received',
      subject: 'Rechnung für März',
      attachment_count: 2,
      attachments: [
        { name: 'rechnung.pdf', mime_type: 'application/pdf', size: 13 },
        { name: 'attachment-2', mime_type: 'text/csv', size: 3 },
      ],
    });
    expect(JSON.stringify(payload)).not.toContain('PDF-1.4');
    const inputs = emailWorkflowInputs(event, [101, 102]);
    expect(inputs).toMatchObject({ trigger_type: 'event', event_source: 'email', event_type: 'email_received', attachment_document_ids: [101, 102] });
    expect((inputs['attachments'] as { document_id: number }[]).map((a) => a.document_id)).toEqual([101, 102]);
  });
});

describe('parseEmailSourceSettings', () => {
  it('defaults label_ids to INBOX', () => {
    expect(parseEmailSourceSettings({ email_address: 'alice@docflow.test' })).toEqual({ settings: { emailAddress: 'alice@docflow.test', mailboxes: ['INBOX'] } });
    expect(parseEmailSourceSettings({ email_address: 'a@b', label_ids: ['INBOX', 'Invoices', 'INBOX'] })).toEqual({ settings: { emailAddress: 'a@b', mailboxes: ['INBOX', 'Invoices'] } });
  });

  it('names what is wrong', () => {
    expect(parseEmailSourceSettings({ email_address: 'nope', label_ids: [] })).toEqual({ errors: ['email_address must be an e-mail address', 'label_ids must be a list of 1 to 20 mailbox names'] });
    expect(parseEmailSourceSettings({ email_address: 'a@b', label_ids: ['INBOX\r\nA001 LOGOUT'] })).toEqual({
      errors: ['label_ids must hold mailbox names (text without line breaks, at most 200 characters)'],
    });
  });
});
