import { createContentClient, type ContentClient } from './content-client';
import { ContentServiceError, DocumentTextError, PromptNotFoundError } from './errors';
import { type LoopbackReply, type LoopbackRequest, LoopbackServer } from './test-support/loopback';

const KEY = 'content-key';

function textBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { document_id: 7, title: 'Invoice 7', mime_type: 'application/pdf', text: 'Invoice number INV-7', pages: [{ page: 1, text: 'Invoice number INV-7' }], text_status: 'completed', ...over };
}

describe('createContentClient', () => {
  let server: LoopbackServer;
  let reply: (req: LoopbackRequest) => LoopbackReply;
  let client: ContentClient;

  beforeAll(async () => {
    server = await LoopbackServer.start((req) => reply(req));
  });

  beforeEach(() => {
    server.requests.length = 0;
    client = createContentClient({ baseUrl: server.url, serviceKey: KEY, pollMs: 5, textWaitMs: 2000, maxChars: 100, maxPages: 3 });
  });

  afterEach(() => client.close());
  afterAll(() => server.stop());

  it('reads a document text for a user, waiting while it is still being extracted', async () => {
    let n = 0;
    reply = () => ({ body: n++ < 2 ? textBody({ text: null, pages: null, text_status: n === 1 ? 'pending' : 'processing' }) : textBody() });
    const doc = await client.documentText(7, { userId: 3 });
    expect(doc).toEqual({
      document_id: 7,
      title: 'Invoice 7',
      mime_type: 'application/pdf',
      text: 'Invoice number INV-7',
      pages: [{ page: 1, text: 'Invoice number INV-7' }],
      page_count: 1,
      text_status: 'completed',
    });
    expect(server.requests).toHaveLength(3);
    expect(server.requests[0]?.path).toBe('/api/internal/documents/7/text');
    expect(server.requests[0]?.query.get('user_id')).toBe('3');
    expect(server.requests[0]?.headers['x-service-key']).toBe(KEY);
  });

  it('accepts a {data: ...} envelope and a page count', async () => {
    reply = () => ({ body: { data: textBody({ pages: 2 }) } });
    const doc = await client.documentText(7);
    expect([doc.pages, doc.page_count, doc.text]).toEqual([null, 2, 'Invoice number INV-7']);
    expect(server.requests[0]?.query.has('user_id')).toBe(false);
  });

  it('gives up on text that stays pending past the wait', async () => {
    const impatient = createContentClient({ baseUrl: server.url, serviceKey: KEY, pollMs: 5, textWaitMs: 20 });
    reply = () => ({ body: textBody({ text: null, text_status: 'processing' }) });
    const err = (await impatient.documentText(7).catch((e: unknown) => e)) as DocumentTextError;
    impatient.close();
    expect(err).toBeInstanceOf(DocumentTextError);
    expect(err.reason).toBe('not_ready');
    expect(err.message).toMatch(/still being extracted \(processing\)/);
  });

  it.each([
    [{ status: 404, body: { error: { status: 404, name: 'NotFoundError', message: 'Document not found' } } }, 'not_found', /Document 7 does not exist or is not visible to user 3/],
    [{ body: textBody({ text: null, text_status: 'failed', text_error: 'corrupt PDF' }) }, 'failed', /Text extraction failed for document 7: corrupt PDF/],
    [{ body: textBody({ text: null, text_status: 'not_applicable', mime_type: 'application/zip' }) }, 'not_applicable', /application\/zip\) has no extractable text/],
    [{ body: textBody({ text: 'x'.repeat(101) }) }, 'too_large', /101 characters of text; the limit is 100/],
    [{ body: textBody({ pages: [1, 2, 3, 4].map((p) => ({ page: p, text: 'x' })) }) }, 'too_large', /4 pages; the limit is 3/],
  ])('refuses a document it cannot use (%#)', async (r, reason, message) => {
    reply = () => r as LoopbackReply;
    const err = (await client.documentText(7, { userId: 3 }).catch((e: unknown) => e)) as DocumentTextError;
    expect(err).toBeInstanceOf(DocumentTextError);
    expect(err.reason).toBe(reason);
    expect(err.message).toMatch(message);
  });

  it('passes a server error on with its status, as not retryable, and a 503 as retryable', async () => {
    reply = () => ({ status: 500, body: { error: { status: 500, name: 'InternalServerError', message: 'boom' } } });
    const e500 = (await client.documentText(7).catch((e: unknown) => e)) as ContentServiceError;
    expect([e500.code, e500.status, e500.retryable]).toEqual(['internal_error', 500, false]);
    reply = () => ({ status: 503, body: { error: 'database_unavailable', message: 'down' } });
    const e503 = (await client.documentText(7).catch((e: unknown) => e)) as ContentServiceError;
    expect([e503.code, e503.status, e503.retryable]).toEqual(['database_unavailable', 503, true]);
  });

  it('lists the prompts a user can see, skipping malformed records, and finds one by id', async () => {
    reply = () => ({
      body: {
        data: [
          {
            id: 1,
            title: 'Invoice extraction',
            type: 'extraction',
            level: 'system',
            section: 'Finance',
            description: 'Invoices',
            roles: [
              { role: 'system', prompt: 'You extract.' },
              { role: 'bot', prompt: 'x' },
            ],
            tasks: ['Extract'],
            instructions: ['Be exact'],
            outputFormat: 'json',
            exampleOutput: { total: 1 },
          },
          { id: '2', title: 'Contract review', type: 'extraction', level: 'user' },
          { title: 'no id' },
          { id: 3 },
        ],
      },
    });
    const prompts = await client.visiblePrompts(5, { type: 'extraction' });
    expect(prompts.map((p) => p.id)).toEqual([1, 2]);
    expect(prompts[0]).toEqual({
      id: 1,
      title: 'Invoice extraction',
      type: 'extraction',
      level: 'system',
      section: 'Finance',
      description: 'Invoices',
      roles: [{ role: 'system', prompt: 'You extract.' }],
      tasks: ['Extract'],
      instructions: ['Be exact'],
      outputFormat: 'json',
      exampleOutput: { total: 1 },
    });
    expect(prompts[1]).toMatchObject({ section: null, description: null, roles: [], outputFormat: null, exampleOutput: null });
    expect(server.requests[0]?.path).toBe('/api/internal/prompts');
    expect([server.requests[0]?.query.get('user_id'), server.requests[0]?.query.get('type')]).toEqual(['5', 'extraction']);
    expect((await client.prompt(2, 5)).title).toBe('Contract review');
    await expect(client.prompt(9, 5)).rejects.toBeInstanceOf(PromptNotFoundError);
  });
});
