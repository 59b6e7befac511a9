import http, { type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { inflatedBody } from './body-encoding';
import { createHttpApp } from './http';
import { requestLane } from './json-lane';
import { silentLogger } from './logger';
import { Metrics } from './metrics';

/** A POST with these exact bytes (supertest serialises a Buffer sent as JSON, so it cannot send a compressed one). */
async function post(listener: RequestListener, path: string, headers: Record<string, string>, body: Buffer | string): Promise<{ status: number; body: unknown }> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers, body });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

function build(): { app: RequestListener; lane: RequestListener } {
  const metrics = new Metrics('encoding-test');
  const app = createHttpApp({ logger: silentLogger, metrics, health: [], errorStyle: 'public', bodyLimit: '1kb' }, (a) => {
    a.post('/api/echo/:id', (req, res) => {
      res.json({ by: 'express', id: req.params['id'], got: req.body as unknown });
    });
  });
  const lane = requestLane({
    fallback: app,
    maxBodyBytes: 1024,
    errorStyle: 'public',
    logger: silentLogger,
    metrics,
    routes: [
      {
        method: 'POST',
        path: /^\/api\/echo\/(\d+)$/,
        label: '/api/echo/:id',
        admit: () => true,
        handle: async ({ params, body }) => ({ status: 200, body: { by: 'lane', id: params[0], got: body } }),
      },
    ],
  });
  return { app, lane };
}

const JSON_TYPE = { 'content-type': 'application/json' };
const plain = JSON.stringify({ name: 'ünïcode', n: [1, 2, 3] });
const compressions: Array<[string, (b: Buffer) => Buffer]> = [
  ['gzip', gzipSync],
  ['deflate', deflateSync],
  ['br', brotliCompressSync],
];

describe('compressed request bodies', () => {
  const { app, lane } = build();

  it.each(compressions)('reads a %s JSON body as the plain one, through express and through the lane', async (encoding, compress) => {
    for (const target of [app, lane]) {
      const res = await post(target, '/api/echo/3', { ...JSON_TYPE, 'content-encoding': encoding }, compress(Buffer.from(plain)));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: '3', got: JSON.parse(plain) as unknown });
    }
    // The upper-case spelling is the same coding.
    const upper = await post(app, '/api/echo/3', { ...JSON_TYPE, 'content-encoding': encoding.toUpperCase() }, compress(Buffer.from(plain)));
    expect(upper.status).toBe(200);
  });

  it('applies the body limit to the inflated size: a small body that inflates past it is 413', async () => {
    const bomb = gzipSync(Buffer.from(JSON.stringify({ a: 'x'.repeat(200_000) })));
    expect(bomb.length).toBeLessThan(1024);
    for (const target of [app, lane]) {
      const res = await post(target, '/api/echo/3', { ...JSON_TYPE, 'content-encoding': 'gzip' }, bomb);
      expect(res).toEqual({ status: 413, body: { error: { status: 413, name: 'PayloadTooLargeError', message: 'Request body is too large', details: {} } } });
    }
  });

  it('answers a body that does not inflate with 400, not 500', async () => {
    for (const [encoding, body] of [
      ['gzip', Buffer.from(plain)],
      ['gzip', gzipSync(plain).subarray(0, 12)],
      ['deflate', Buffer.from('not deflate')],
      ['br', Buffer.from('not brotli at all, not at all')],
    ] as const) {
      const res = await post(lane, '/api/echo/3', { ...JSON_TYPE, 'content-encoding': encoding }, body);
      expect({ encoding, ...res }).toEqual({
        encoding,
        status: 400,
        body: {
          error: {
            status: 400,
            name: 'BadRequestError',
            message: 'Request body could not be decompressed',
            details: { errors: ['the body does not match its Content-Encoding'] },
          },
        },
      });
    }
  });

  it('refuses another coding with 415 in the error body', async () => {
    const res = await post(lane, '/api/echo/3', { ...JSON_TYPE, 'content-encoding': 'zstd' }, Buffer.from(plain));
    expect(res).toEqual({
      status: 415,
      body: {
        error: {
          status: 415,
          name: 'UnsupportedMediaTypeError',
          message: 'Unsupported body encoding',
          details: { errors: ['Content-Encoding zstd is not accepted: send the body as is, or with gzip, deflate, br'] },
        },
      },
    });
  });

  it('answers a path parameter that is not valid percent-encoding with 400, not 500', async () => {
    const res = await post(app, '/api/echo/%E0%A4%A', JSON_TYPE, '{}');
    expect(res).toEqual({
      status: 400,
      body: { error: { status: 400, name: 'BadRequestError', message: 'Malformed path', details: { errors: ['a path segment is not valid percent-encoding'] } } },
    });
  });
});

describe('inflatedBody', () => {
  async function read(stream: Readable): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  it('inflates up to the limit', async () => {
    const text = 'y'.repeat(5000);
    expect((await read(inflatedBody(Readable.from([brotliCompressSync(text)]), 'br', 5000))).toString()).toBe(text);
  });

  it('fails with 413 past the limit and 400 on bytes that do not inflate', async () => {
    await expect(read(inflatedBody(Readable.from([gzipSync('z'.repeat(5001))]), 'gzip', 5000))).rejects.toMatchObject({ status: 413 });
    await expect(read(inflatedBody(Readable.from([Buffer.from('plain')]), 'deflate', 5000))).rejects.toMatchObject({ status: 400 });
  });
});
