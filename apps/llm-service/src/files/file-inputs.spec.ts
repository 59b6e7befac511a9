import request from 'supertest';
import { createShieldRuntime } from '@docflow/data-shield';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { buildDocx, buildPdf, buildPng, LoopbackFileServer } from '@docflow/testing';
import { createApp } from '../app';
import { HttpDataShield } from '../data-shield/data-shield.client';
import { InProcessDataShield } from '../data-shield/in-process.data-shield';
import { Pricing } from '../pricing/pricing';
import { buildProviderRegistry } from '../providers/registry';
import { anthropicMessage, openAiCompletion, recordingClock, startStubServer, type StubServer } from '../testing/stub-server';
import { FileResolver } from './file-inputs';

/** file_urls on extract and chat (issue 19, item 1), against loopback providers and a loopback file server. */
const SERVICE_KEY = 'test-service-key-0123456789';
const JWT_SECRET = 'test-jwt-secret-0123456789';
let openai: StubServer;
let anthropic: StubServer;
let files: LoopbackFileServer;
let platform: LoopbackFileServer;

beforeAll(async () => {
  openai = await startStubServer(() => ({ status: 200, body: openAiCompletion('The invoice number is INV-77.') }));
  anthropic = await startStubServer(() => ({ status: 200, body: anthropicMessage([{ type: 'text', text: 'claude read it' }]) }));
  [files, platform] = await Promise.all([LoopbackFileServer.start(), LoopbackFileServer.start()]);
});

afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), files.stop(), platform.stop()]);
});

beforeEach(() => {
  openai.requests.length = 0;
  anthropic.requests.length = 0;
});

function build(options: { allowFiles?: boolean; shielded?: boolean; maxBytes?: number } = {}) {
  const providers = buildProviderRegistry(
    [
      { modelType: 'provider_a', kind: 'openai', url: `${openai.url}/v1`, apiKey: 'sk-a', model: 'gpt-4o-mini' },
      { modelType: 'provider_b', kind: 'anthropic', url: `${anthropic.url}/v1`, apiKey: 'sk-b' },
    ],
    { timeoutMs: 5000, retry: { maxRetries: 0, baseMs: 100, maxWaitMs: 1000 }, clock: recordingClock() },
  );
  return createApp({
    logger: silentLogger,
    metrics: new Metrics('llm-files-test'),
    auth: { serviceKey: SERVICE_KEY, jwtSecret: JWT_SECRET },
    providers,
    dataShield: options.shielded
      ? new InProcessDataShield(createShieldRuntime({ service: 'test', logger: silentLogger, jwtSecret: JWT_SECRET, auditDisabled: true, scopeTtlSeconds: 60, tenantCacheSeconds: 0 }).service)
      : new HttpDataShield({ baseUrl: 'http://127.0.0.1:9', serviceKey: SERVICE_KEY, timeoutMs: 500 }),
    pricing: new Pricing({}),
    files: new FileResolver({
      publicBaseUrl: platform.url(''),
      allowedHosts: options.allowFiles === false ? [] : [files.hostPort],
      maxBytes: options.maxBytes ?? 1024 * 1024,
      maxChars: 10_000,
    }),
  });
}

const post = (app: ReturnType<typeof build>, path: string, body: unknown) =>
  request(app)
    .post(path)
    .set('X-Service-Key', SERVICE_KEY)
    .send(body as object);
type SentMessage = { role: string; content: string | { type: string; text?: string; image_url?: { url: string } }[] };
const sentTo = (stub: StubServer) => (stub.requests[0]!.body as { messages: SentMessage[] }).messages;

describe('file_urls', () => {
  it('reads a PDF into the prompt of extract, and the usage counts its tokens', async () => {
    const url = files.serve('/invoice.pdf', 'application/pdf', buildPdf([['Invoice INV-77', 'Total due: 120 EUR']]));
    const res = await post(build(), '/api/v1/extract', {
      messages: [{ role: 'user', content: 'What is the invoice number?' }],
      output_format: 'text',
      file_urls: [{ url, mime_type: 'application/pdf' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('The invoice number is INV-77.');
    const [user] = sentTo(openai);
    expect(user!.content).toContain('What is the invoice number?');
    expect(user!.content).toContain('Invoice INV-77');
    expect(user!.content).toContain('--- Attached file 1: invoice.pdf (application/pdf) ---');
  });

  it('reads DOCX and CSV files on the legacy form and on chat', async () => {
    const docx = files.serve('/letter.docx', 'application/octet-stream', buildDocx(['Dear customer, your parcel number is P-4411.']));
    const csv = files.serve('/rows.csv', 'text/csv', Buffer.from('sku,qty\nA-1,3\n'));
    expect(
      (
        await post(build(), '/api/v1/extract', {
          content: 'see files',
          prompt_template: 'Summarise: {content}',
          output_format: 'text',
          file_urls: [{ url: docx }, { url: csv, mime_type: 'text/csv' }],
        })
      ).status,
    ).toBe(200);
    const sent = JSON.stringify(sentTo(openai));
    expect(sent).toContain('P-4411');
    expect(sent).toContain('A-1,3');
    openai.requests.length = 0;
    const chat = await post(build(), '/api/v1/chat', {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Parcel?' },
      ],
      file_urls: [{ url: docx }],
    });
    expect(chat.status).toBe(200);
    expect(sentTo(openai)[1]!.content).toContain('P-4411');
  });

  it('sends images natively: an image_url part to OpenAI-compatible providers, image and document blocks to Anthropic', async () => {
    const png = buildPng(2, 2);
    const image = files.serve('/scan.png', 'image/png', png);
    const pdf = files.serve('/doc.pdf', 'application/pdf', buildPdf([['Native PDF']]));
    expect((await post(build(), '/api/v1/chat', { messages: [{ role: 'user', content: 'What is this?' }], file_urls: [{ url: image }] })).status).toBe(200);
    expect(sentTo(openai)[0]!.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
    ]);
    expect((await post(build(), '/api/v1/chat', { model_type: 'provider_b', messages: [{ role: 'user', content: 'And these?' }], file_urls: [{ url: image }, { url: pdf }] })).status).toBe(200);
    const blocks = (anthropic.requests[0]!.body as { messages: { content: { type: string; source?: { media_type: string } }[] }[] }).messages[0]!.content;
    expect(blocks.map((b) => [b.type, b.source?.media_type])).toEqual([
      ['image', 'image/png'],
      ['document', 'application/pdf'],
      ['text', undefined],
    ]);
  });

  it('shields the extracted text like the rest of the prompt; an image with shielding is 400 and nothing is sent', async () => {
    const url = files.serve('/contact.txt', 'text/plain', Buffer.from('Write to jane@example.com about the refund.'));
    const res = await post(build({ shielded: true }), '/api/v1/extract', {
      messages: [{ role: 'user', content: 'Who do I write to?' }],
      output_format: 'text',
      data_shield: { enabled: true, tenant: '2', actor_user_id: 2 },
      file_urls: [{ url, mime_type: 'text/plain' }],
    });
    expect(res.status).toBe(200);
    const sent = JSON.stringify(sentTo(openai));
    expect(sent).toContain('refund');
    expect(sent).not.toContain('jane@example.com');
    expect(sent).toMatch(/EMAIL_[0-9a-f]{8}/);
    openai.requests.length = 0;
    const image = files.serve('/face.png', 'image/png', buildPng(2, 2));
    const refused = await post(build({ shielded: true }), '/api/v1/extract', { messages: [{ role: 'user', content: 'x' }], data_shield: { enabled: true }, file_urls: [{ url: image }] });
    expect(refused.status).toBe(400);
    expect(openai.requests).toHaveLength(0);
  });

  it('refuses private addresses not in REST_API_ALLOWED_HOSTS (400), but fetches the platform’s own signed document URLs', async () => {
    const url = files.serve('/secret.txt', 'text/plain', Buffer.from('internal'));
    const refused = await post(build({ allowFiles: false }), '/api/v1/extract', { messages: [{ role: 'user', content: 'x' }], file_urls: [{ url }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('file_url_forbidden');
    expect(openai.requests).toHaveLength(0);

    const signed = platform.serve('/api/documents/12/signed-download', 'text/plain', Buffer.from('Signed document text: code 5150.'));
    const own = await post(build({ allowFiles: false }), '/api/v1/extract', { messages: [{ role: 'user', content: 'Code?' }], file_urls: [{ url: `${signed}?expires=1&signature=abc` }] });
    expect(own.status).toBe(200);
    expect(JSON.stringify(sentTo(openai))).toContain('code 5150');
    // Another path on the platform's host is not a signed document URL.
    platform.serve('/api/internal/secrets', 'text/plain', Buffer.from('no'));
    expect((await post(build({ allowFiles: false }), '/api/v1/extract', { messages: [{ role: 'user', content: 'x' }], file_urls: [{ url: platform.url('/api/internal/secrets') }] })).status).toBe(400);
  });

  it('refuses a file past the size limit and a type it does not read (422), before any provider call', async () => {
    const big = files.serve('/big.txt', 'text/plain', Buffer.alloc(4096, 'a'));
    const tooBig = await post(build({ maxBytes: 2048 }), '/api/v1/extract', { messages: [{ role: 'user', content: 'x' }], file_urls: [{ url: big }] });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.error).toBe('file_url_unreadable');
    const zip = files.serve('/a.bin', 'application/x-msdownload', Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03]));
    const odd = await post(build(), '/api/v1/extract', { messages: [{ role: 'user', content: 'x' }], file_urls: [{ url: zip }] });
    expect(odd.status).toBe(422);
    expect(odd.body.error).toBe('file_type_unsupported');
    expect(openai.requests).toHaveLength(0);
  });
});
