import zlib from 'node:zlib';
import { createOutboundClient, type OutboundClient } from './outbound-client';
import { OutboundRequestError } from './outbound-error';
import { closedPort, startTestServer, type TestServer } from './test-support/test-server';

async function failure(promise: Promise<unknown>): Promise<OutboundRequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundRequestError) return error;
    throw error;
  }
  throw new Error('request succeeded but should have failed');
}

describe('outbound client against an allowed loopback host', () => {
  let server: TestServer;
  let client: OutboundClient;
  let base: string;

  beforeAll(async () => {
    server = await startTestServer((request, response) => {
      const path = new URL(request.url, 'http://x').pathname;
      switch (path) {
        case '/json':
          response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-upstream': 'yes' });
          response.end(JSON.stringify({ ok: true, items: [{ id: 7 }] }));
          return;
        case '/echo':
          response.writeHead(201, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ method: request.method, headers: request.headers, body: request.body }));
          return;
        case '/text':
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end('{"looks":"like json"}');
          return;
        case '/untyped':
          response.end('{"untyped":1}');
          return;
        case '/latin1':
          response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
          response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
          return;
        case '/gzip':
          response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
          response.end(zlib.gzipSync(JSON.stringify({ zipped: true })));
          return;
        case '/bomb':
          response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
          response.end(zlib.gzipSync(Buffer.alloc(64 * 1024, 0x61)));
          return;
        case '/big-declared':
          response.writeHead(200, { 'content-length': '5000' });
          response.end(Buffer.alloc(5000, 0x62));
          return;
        case '/big-chunked':
          response.writeHead(200, { 'content-type': 'text/plain' });
          for (let i = 0; i < 10; i += 1) response.write(Buffer.alloc(500, 0x63));
          response.end();
          return;
        case '/exact':
          response.end(Buffer.alloc(1000, 0x64));
          return;
        case '/hang':
          return; // never answers
        case '/stall-body':
          response.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
          response.write('partial');
          return; // never finishes the body
        case '/not-found':
          response.writeHead(404, { 'content-type': 'application/json' });
          response.end('{"error":"nope"}');
          return;
        case '/unavailable':
          response.writeHead(503).end('try later');
          return;
        case '/empty-error':
          response.writeHead(500).end();
          return;
        case '/long-error':
          response.writeHead(400, { 'content-type': 'text/plain' });
          response.end('x'.repeat(5000));
          return;
        default:
          response.writeHead(500).end('unexpected path');
      }
    });
    base = `http://127.0.0.1:${server.port}`;
    client = createOutboundClient({ allowedHosts: [`127.0.0.1:${server.port}`], maxResponseBytes: 1000 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('GETs JSON: parsed body, raw text, headers and final URL', async () => {
    const response = await client.request({ url: `${base}/json?x=1#frag` });
    expect(response).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'application/json; charset=utf-8', 'x-upstream': 'yes' }),
      body: { ok: true, items: [{ id: 7 }] },
      text: '{"ok":true,"items":[{"id":7}]}',
      bytes: Buffer.from('{"ok":true,"items":[{"id":7}]}'),
      url: `${base}/json?x=1#frag`,
    });
    expect(server.requests.at(-1)?.url).toBe('/json?x=1');
  });

  it('passes caller headers, sets a user agent, and drops framing headers', async () => {
    const response = await client.request({
      url: `${base}/echo`,
      headers: { 'X-Api-Key': 'k-123', Accept: 'application/xml', Host: 'evil.example', 'Transfer-Encoding': 'chunked' },
    });
    const echoed = response.body as { method: string; headers: Record<string, string> };
    expect(echoed.method).toBe('GET');
    expect(echoed.headers['x-api-key']).toBe('k-123');
    expect(echoed.headers.accept).toBe('application/xml');
    expect(echoed.headers['user-agent']).toBe('Docflow-Outbound/1.0');
    expect(echoed.headers.host).toBe(`127.0.0.1:${server.port}`);
    expect(echoed.headers['transfer-encoding']).toBeUndefined();
  });

  it('sends the body as JSON for POST, PUT and PATCH, and not for GET', async () => {
    for (const method of ['POST', 'put', 'PATCH']) {
      const response = await client.request({ url: `${base}/echo`, method, body: { name: 'Zoë', n: [1, 2] } });
      expect(response.status).toBe(201);
      const echoed = response.body as { method: string; headers: Record<string, string>; body: string };
      expect(echoed.method).toBe(method.toUpperCase());
      expect(echoed.headers['content-type']).toBe('application/json');
      expect(JSON.parse(echoed.body)).toEqual({ name: 'Zoë', n: [1, 2] });
    }
    const get = await client.request({ url: `${base}/echo`, body: { ignored: true } });
    expect((get.body as { body: string }).body).toBe('');
  });

  it('returns text unless the content is JSON', async () => {
    expect((await client.request({ url: `${base}/text` })).body).toBe('{"looks":"like json"}');
    expect((await client.request({ url: `${base}/untyped` })).body).toEqual({ untyped: 1 });
    expect((await client.request({ url: `${base}/latin1` })).text).toBe('café');
  });

  it('decompresses gzip, counting decompressed bytes against the cap', async () => {
    expect((await client.request({ url: `${base}/gzip` })).body).toEqual({ zipped: true });
    expect(await failure(client.request({ url: `${base}/bomb` }))).toMatchObject({ kind: 'too_large', retryable: false });
  });

  it('caps the response size whether or not a length is declared', async () => {
    const declared = await failure(client.request({ url: `${base}/big-declared` }));
    expect(declared).toMatchObject({ kind: 'too_large', retryable: false, message: 'Response body exceeds the 1000 byte limit' });
    expect((await failure(client.request({ url: `${base}/big-chunked` }))).kind).toBe('too_large');
    expect((await client.request({ url: `${base}/exact` })).text).toHaveLength(1000);
  });

  it('times out while waiting for the response and while reading the body', async () => {
    const waiting = await failure(client.request({ url: `${base}/hang`, timeoutMs: 150 }));
    expect(waiting).toMatchObject({ kind: 'timeout', retryable: true, message: 'Request timed out after 150 ms' });
    const reading = await failure(client.request({ url: `${base}/stall-body`, timeoutMs: 150 }));
    expect(reading.kind).toBe('timeout');
  });

  it('fails non-2xx with the upstream status followed by the body', async () => {
    const notFound = await failure(client.request({ url: `${base}/not-found` }));
    expect(notFound).toMatchObject({ kind: 'http', status: 404, retryable: false, message: 'HTTP 404: {"error":"nope"}' });
    expect(await failure(client.request({ url: `${base}/unavailable` }))).toMatchObject({
      status: 503,
      retryable: true,
      message: 'HTTP 503: try later',
    });
    expect((await failure(client.request({ url: `${base}/empty-error` }))).message).toBe('HTTP 500: Internal Server Error');
    const roomy = createOutboundClient({ allowedHosts: [`127.0.0.1:${server.port}`] });
    const long = await failure(roomy.request({ url: `${base}/long-error` }));
    expect(long.message).toBe(`HTTP 400: ${'x'.repeat(2048)}…`);
  });

  it('refuses bad request options as configuration errors without sending', async () => {
    const before = server.requests.length;
    expect((await failure(client.request({ url: `${base}/echo`, method: 'TRACE' }))).kind).toBe('configuration');
    expect((await failure(client.request({ url: `${base}/echo`, headers: { 'x-bad': 'a\r\nInjected: 1' } }))).kind).toBe('configuration');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect((await failure(client.request({ url: `${base}/echo`, method: 'POST', body: cyclic }))).kind).toBe('configuration');
    expect((await failure(client.request({ url: `${base}/echo`, timeoutMs: 0 }))).kind).toBe('configuration');
    expect(server.requests.length).toBe(before);
  });

  it('reports a refused connection as a retryable network error', async () => {
    const port = await closedPort();
    const offline = createOutboundClient({ allowedHosts: [`127.0.0.1:${port}`] });
    const error = await failure(offline.request({ url: `http://127.0.0.1:${port}/` }));
    expect(error).toMatchObject({ kind: 'network', retryable: true, message: `Network error contacting 127.0.0.1:${port}: ECONNREFUSED` });
  });
});
