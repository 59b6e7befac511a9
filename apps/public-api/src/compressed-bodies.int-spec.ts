import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { type DocumentsKit, openDocumentsKit } from './documents/test-support/documents-kit';
import { sampleDefinition } from './workflows/executions/test-support/actors';

/**
 * Compressed request bodies through the public API as it serves (the request lane ahead of express), over real
 * HTTP: supertest serialises a Buffer sent as JSON, so it cannot send a compressed one.
 */
let kit: DocumentsKit;
let server: http.Server;
let base: string;

beforeAll(async () => {
  kit = await openDocumentsKit({ UPLOAD_MAX_FILE_SIZE_MB: '1' });
  server = http.createServer(kit.api.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await kit?.close();
});

interface Answer {
  status: number;
  body: { data?: { id: number; [key: string]: unknown }; error?: { status: number; name: string; message: string; details: Record<string, unknown> } } & Record<string, unknown>;
}

async function post(path: string, headers: Record<string, string>, body: Buffer | string): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: kit.alice.auth, ...headers }, body });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

const compressions: Array<[string, (b: Buffer) => Buffer]> = [
  ['gzip', gzipSync],
  ['deflate', deflateSync],
  ['br', brotliCompressSync],
];

function form(boundary: string, title: string, content: string): Buffer {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n${title}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="note.txt"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`,
  );
}

describe('compressed request bodies through the public API', () => {
  it.each(compressions)('creates an activity (express) and an execution (the request lane) from %s JSON bodies', async (encoding, compress) => {
    const json = { 'content-type': 'application/json', 'content-encoding': encoding };
    const activity = await post('/activities', json, compress(Buffer.from(JSON.stringify({ data: { name: `Flow ${encoding}`, workflow_definition: sampleDefinition() } }))));
    expect(activity.status).toBe(201);
    expect(activity.body.data).toMatchObject({ name: `Flow ${encoding}` });
    const execution = await post(
      '/workflow-executions',
      json,
      compress(Buffer.from(JSON.stringify({ data: { activity: activity.body.data!.id, inputs: { document_url: 'https://files.example/a.pdf' } } }))),
    );
    expect(execution.status).toBe(201);
    const rows = (await kit.bed.database.query('SELECT inputs FROM workflow_executions WHERE id = $1', [execution.body.data!.id])) as { inputs: unknown }[];
    expect(rows[0]?.inputs).toEqual({ document_url: 'https://files.example/a.pdf' });
  });

  it('answers a zip bomb 413, a body that does not inflate 400 and another coding 415, creating nothing', async () => {
    const count = async () => Number(((await kit.bed.database.query('SELECT count(*) AS n FROM activities')) as { n: string }[])[0]!.n);
    const before = await count();
    const bomb = gzipSync(Buffer.from(JSON.stringify({ data: { name: 'x'.repeat(30 * 1024 * 1024) } })));
    expect(bomb.length).toBeLessThan(64 * 1024);
    for (const path of ['/activities', '/workflow-executions']) {
      const big = await post(path, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, bomb);
      expect(big.status).toBe(413);
      expect(big.body.error).toMatchObject({ status: 413, name: 'PayloadTooLargeError' });
      const corrupt = await post(path, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{"data":{}}');
      expect(corrupt.status).toBe(400);
      expect(corrupt.body.error).toMatchObject({ status: 400, name: 'BadRequestError', message: 'Request body could not be decompressed' });
      const zstd = await post(path, { 'content-type': 'application/json', 'content-encoding': 'zstd' }, '{"data":{}}');
      expect(zstd.status).toBe(415);
      expect(zstd.body.error).toMatchObject({ status: 415, name: 'UnsupportedMediaTypeError' });
    }
    expect(await count()).toBe(before);
  });

  it.each(compressions)('stores a %s multipart upload as the plain one', async (encoding, compress) => {
    const res = await post(
      '/documents/upload',
      { 'content-type': 'multipart/form-data; boundary=b0undary', 'content-encoding': encoding },
      compress(form('b0undary', `Note ${encoding}`, 'hello, inflated')),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: `Note ${encoding}`, file_size: 'hello, inflated'.length, mime_type: 'text/plain' });
    const file = await fetch(`${base}/documents/${res.body['id'] as number}/download`, { headers: { authorization: kit.alice.auth } });
    expect(await file.text()).toBe('hello, inflated');
  });

  it('refuses a multipart bomb (413), a form that ends early or names no boundary (400) and another coding (415), storing nothing', async () => {
    const before = ((await kit.bed.database.query('SELECT count(*) AS n FROM documents')) as { n: string }[])[0]!.n;
    const type = { 'content-type': 'multipart/form-data; boundary=b0undary' };
    const bomb = await post('/documents/upload', { ...type, 'content-encoding': 'gzip' }, gzipSync(form('b0undary', 'Bomb', '0'.repeat(3 * 1024 * 1024))));
    expect(bomb.status).toBe(413);
    expect(bomb.body.error).toMatchObject({ status: 413, name: 'PayloadTooLargeError' });
    const truncated = await post('/documents/upload', type, form('b0undary', 'Cut', 'hello').subarray(0, 120));
    expect(truncated.status).toBe(400);
    expect(truncated.body.error).toMatchObject({ status: 400, name: 'BadRequestError', details: { errors: ['the multipart body is malformed or ends early'] } });
    const corrupt = await post('/documents/upload', { ...type, 'content-encoding': 'gzip' }, form('b0undary', 'Plain', 'hello'));
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.error).toMatchObject({ status: 400, message: 'Request body could not be decompressed' });
    const noBoundary = await post('/documents/upload', { 'content-type': 'multipart/form-data' }, form('b0undary', 'Plain', 'hello'));
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.error).toMatchObject({ status: 400, details: { errors: ['the multipart Content-Type is malformed or names no boundary'] } });
    const zstd = await post('/documents/upload', { ...type, 'content-encoding': 'zstd' }, form('b0undary', 'Z', 'hello'));
    expect(zstd.status).toBe(415);
    expect(((await kit.bed.database.query('SELECT count(*) AS n FROM documents')) as { n: string }[])[0]!.n).toBe(before);
  });
});
