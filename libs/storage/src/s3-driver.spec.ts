import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createStorage } from './create-storage';
import { StorageKeyError, StorageObjectNotFoundError, StoragePayloadTooLargeError } from './errors';
import { generateKey } from './keys';
import { S3Driver } from './s3-driver';

interface Recorded {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
}

/** Just enough of S3's path-style REST API: PUT/GET/HEAD/DELETE object, HEAD bucket. */
class FakeS3 {
  readonly objects = new Map<string, { body: Buffer; contentType: string | undefined }>();
  readonly requests: Recorded[] = [];
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = decodeURIComponent(url.pathname);
    this.requests.push({ method: req.method ?? '', path, headers: req.headers });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const [, bucket, ...rest] = path.split('/');
    const key = rest.join('/');
    if (bucket !== 'docs') return this.error(res, 404, 'NoSuchBucket');
    if (key === '' && req.method === 'HEAD') return void res.writeHead(200).end();
    const stored = this.objects.get(key);
    switch (req.method) {
      case 'PUT':
        this.objects.set(key, { body: Buffer.concat(chunks), contentType: req.headers['content-type'] });
        res.writeHead(200, { ETag: '"etag"' }).end();
        return;
      case 'GET':
        if (!stored) return this.error(res, 404, 'NoSuchKey');
        res.writeHead(200, { 'Content-Length': stored.body.length, 'Content-Type': stored.contentType ?? 'application/octet-stream' }).end(stored.body);
        return;
      case 'HEAD':
        if (!stored) return void res.writeHead(404).end();
        res
          .writeHead(200, {
            'Content-Length': stored.body.length,
            'Content-Type': stored.contentType ?? 'application/octet-stream',
            'Last-Modified': 'Fri, 01 May 2026 12:00:00 GMT',
          })
          .end();
        return;
      case 'DELETE':
        this.objects.delete(key);
        res.writeHead(204).end();
        return;
      default:
        this.error(res, 405, 'MethodNotAllowed');
    }
  }

  private error(res: http.ServerResponse, status: number, code: string): void {
    res.writeHead(status, { 'Content-Type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`);
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('S3Driver against an in-process fake S3 endpoint', () => {
  const fake = new FakeS3();
  let driver: S3Driver;

  beforeAll(async () => {
    const endpoint = await fake.start();
    const storage = createStorage({
      driver: 's3',
      bucket: 'docs',
      region: 'eu-west-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      prefix: 'uploads',
    });
    expect(storage).toBeInstanceOf(S3Driver);
    driver = storage as S3Driver;
  });

  afterAll(async () => {
    driver.client.destroy();
    await fake.stop();
  });

  beforeEach(() => {
    fake.requests.length = 0;
  });

  it('puts a stream as one signed path-style PUT under the prefix, with its content type', async () => {
    const key = generateKey('pdf');
    const body = Buffer.from('%PDF-1.4 fake');
    const result = await driver.put(key, Readable.from([body.subarray(0, 4), body.subarray(4)]), { contentType: 'application/pdf', maxBytes: 1000 });
    expect(result).toEqual({ key, size: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`PUT /docs/uploads/${key}`]);
    const put = fake.requests[0]!;
    expect(put.headers['content-type']).toBe('application/pdf');
    expect(put.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request/);
    expect(fake.objects.get(`uploads/${key}`)?.body).toEqual(body);
  });

  it('reads back, stats and deletes', async () => {
    const key = generateKey('txt');
    await driver.put(key, Buffer.from('hello s3'), { contentType: 'text/plain' });
    expect((await readAll(await driver.get(key))).toString()).toBe('hello s3');
    const info = await driver.stat(key);
    expect(info).toMatchObject({ key, size: 8, contentType: 'text/plain' });
    expect(info.lastModified.toISOString()).toBe('2026-05-01T12:00:00.000Z');
    expect(await driver.exists(key)).toBe(true);
    await driver.delete(key);
    expect(await driver.exists(key)).toBe(false);
  });

  it('maps missing objects to StorageObjectNotFoundError', async () => {
    const key = generateKey();
    await expect(driver.get(key)).rejects.toBeInstanceOf(StorageObjectNotFoundError);
    await expect(driver.stat(key)).rejects.toBeInstanceOf(StorageObjectNotFoundError);
    await expect(driver.delete(key)).resolves.toBeUndefined();
  });

  it('sends nothing when maxBytes is exceeded or the source fails', async () => {
    const tooBig = driver.put(generateKey(), Readable.from([Buffer.alloc(700), Buffer.alloc(700)]), { maxBytes: 1024 });
    await expect(tooBig).rejects.toBeInstanceOf(StoragePayloadTooLargeError);
    const failing = new Readable({
      read() {
        this.destroy(new Error('client went away'));
      },
    });
    await expect(driver.put(generateKey(), failing)).rejects.toThrow('client went away');
    expect(fake.requests).toEqual([]);
  });

  it('refuses traversal keys without a request', async () => {
    await expect(driver.put('../escape', Buffer.from('x'))).rejects.toBeInstanceOf(StorageKeyError);
    await expect(driver.get('a/../../b')).rejects.toBeInstanceOf(StorageKeyError);
    expect(fake.requests).toEqual([]);
  });

  it('checks the bucket for health', async () => {
    await expect(driver.healthCheck().check()).resolves.toBeUndefined();
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['HEAD /docs/']);
  });
});
