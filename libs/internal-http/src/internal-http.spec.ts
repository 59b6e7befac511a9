import net from 'node:net';
import { Readable } from 'node:stream';
import { verifyServiceToken } from '@docflow/internal-auth';
import { runWithContext } from '@docflow/service-kit';
import { HttpTarget } from '@docflow/testing';
import { readErrorBody } from './error-body';
import { InternalHttpClient, InternalHttpError } from './internal-http-client';
import { InternalServiceError } from './internal-service-error';
import { JsonServiceClient } from './json-service-client';

const SECRET = 'internal-secret-0123456789abcdef0123';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const port = (probe.address() as net.AddressInfo).port;
      probe.close(() => resolve(port));
    });
  });
}

describe('InternalHttpClient', () => {
  let target: HttpTarget;
  const clients: InternalHttpClient[] = [];
  const client = (o: Partial<ConstructorParameters<typeof InternalHttpClient>[0]> = {}): InternalHttpClient => {
    const c = new InternalHttpClient({ service: 'public-api', baseUrl: `${target.url('')}/`, auth: { kind: 'service-key', key: 'k-1' }, timeoutMs: 5000, ...o });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    target = await HttpTarget.start();
  });

  afterAll(async () => {
    clients.forEach((c) => c.close());
    await target.stop();
  });

  it('sends each kind of service credential, the current correlation id and a JSON body, and reads the JSON answer', async () => {
    target.on('POST /api/x', (hit) => ({ status: 201, body: { echo: JSON.parse(hit.body) as unknown } }));
    const res = await runWithContext({ correlationId: 'corr-42' }, () => client().request({ method: 'POST', path: '/api/x', query: { a: 1, b: undefined }, json: { n: 1 } }));
    expect(res).toMatchObject({ status: 201, body: { echo: { n: 1 } } });
    const hit = target.hitsOf('/api/x').at(-1)!;
    expect([hit.query, hit.headers['x-service-key'], hit.headers['x-correlation-id'], hit.headers['content-type']]).toEqual(['a=1', 'k-1', 'corr-42', 'application/json']);

    await client({ auth: { kind: 'api-key', key: 'router-key' } }).request({ method: 'GET', path: '/api/x' });
    expect(target.hitsOf('/api/x').at(-1)!.headers).toMatchObject({ 'x-api-key': 'router-key' });
    expect(target.hitsOf('/api/x').at(-1)!.headers['x-correlation-id']).toBeUndefined();

    await client({ auth: { kind: 'service-jwt', secret: SECRET, service: 'data-shield' } }).request({ method: 'GET', path: '/api/x' });
    const bearer = String(target.hitsOf('/api/x').at(-1)!.headers.authorization).replace(/^Bearer /, '');
    expect(verifyServiceToken(SECRET, bearer)).toEqual({ service: 'data-shield' });
  });

  it('returns any status as an answer and a non-JSON body as text', async () => {
    target.on('GET /plain', () => ({ status: 503, body: 'busy' }));
    await expect(client().request({ method: 'GET', path: '/plain' })).resolves.toMatchObject({ status: 503, body: 'busy' });
  });

  it('streams a body', async () => {
    target.on('POST /upload', (hit) => ({ body: { got: hit.body, type: hit.headers['content-type'] } }));
    const res = await client().request({ method: 'POST', path: '/upload', stream: { body: Readable.from([Buffer.from('ab'), Buffer.from('cd')]), contentType: 'text/plain' } });
    expect(res.body).toEqual({ got: 'abcd', type: 'text/plain' });
  });

  it('fails with timeout, aborted, unreachable and bad_response', async () => {
    target.on('GET /hang', () => new Promise(() => undefined));
    const timedOut = await client({ timeoutMs: 100 })
      .request({ method: 'GET', path: '/hang' })
      .catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(InternalHttpError);
    expect([(timedOut as InternalHttpError).kind, (timedOut as Error).message]).toEqual(['timeout', 'public-api did not answer GET /hang within 100 ms']);

    const controller = new AbortController();
    const pending = client()
      .request({ method: 'GET', path: '/hang', signal: controller.signal })
      .catch((e: unknown) => e);
    await target.waitForHits('/hang', 2);
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'aborted' });

    const port = await closedPort();
    const down = await client({ baseUrl: `http://127.0.0.1:${port}` })
      .request({ method: 'GET', path: '/' })
      .catch((e: unknown) => e);
    expect(down).toMatchObject({ kind: 'unreachable', code: 'ECONNREFUSED' });
    expect((down as Error).message).toContain(`127.0.0.1:${port}`);

    target.on('GET /big', () => ({ body: 'x'.repeat(5000) }));
    await expect(client({ maxResponseBytes: 1000 }).request({ method: 'GET', path: '/big' })).rejects.toMatchObject({ kind: 'bad_response' });
  });

  it('sends a request once more when the connection is reset before any answer, but not a streamed one', async () => {
    let requests = 0;
    const resetting = await HttpTarget.start();
    resetting.otherwise(() => (++requests % 2 === 1 ? { reset: true } : { body: { ok: true } }));
    try {
      const c = client({ baseUrl: resetting.url('') });
      await expect(c.request({ method: 'POST', path: '/', json: {} })).resolves.toMatchObject({ status: 200, body: { ok: true } });
      expect(requests).toBe(2);
      await expect(c.request({ method: 'POST', path: '/', stream: { body: Readable.from(['x']) } })).rejects.toMatchObject({ kind: 'unreachable', code: 'ECONNRESET' });
      expect(requests).toBe(3);
    } finally {
      await resetting.stop();
    }
  });
});

describe('readErrorBody', () => {
  it('reads the internal and the public error shape, and falls back on the status', () => {
    expect(readErrorBody(503, { error: 'llm_service_unavailable', message: 'busy', details: { retry_after: 5 } })).toEqual({
      code: 'llm_service_unavailable',
      message: 'busy',
      details: { retry_after: 5 },
    });
    expect(readErrorBody(400, { error: { status: 400, name: 'ValidationError', message: 'bad', details: { errors: ['x'] } } })).toEqual({
      code: 'validation_error',
      message: 'bad',
      details: { errors: ['x'] },
    });
    expect(readErrorBody(418, 'teapot')).toEqual({ code: 'http_error', message: 'teapot', details: {} });
  });
});

describe('JsonServiceClient', () => {
  class TestServiceError extends InternalServiceError {}

  it('turns a refusal and a missing answer into the caller’s typed error', async () => {
    const target = await HttpTarget.start();
    const c = new JsonServiceClient(
      { service: 'llm-service', baseUrl: target.url(''), auth: { kind: 'service-key', key: 'k' }, timeoutMs: 100 },
      (code, message, o) => new TestServiceError('llm-service', code, message, o),
    );
    try {
      target.on('POST /busy', () => ({ status: 503, body: { error: 'llm_service_unavailable', message: 'busy', details: { retry_after: 7 } } }));
      const busy = (await c.post('/busy', {}).catch((e: unknown) => e)) as TestServiceError;
      expect(busy).toBeInstanceOf(TestServiceError);
      expect([busy.code, busy.status, busy.retryable, busy.retryAfterSeconds, busy.message]).toEqual([
        'llm_service_unavailable',
        503,
        true,
        7,
        'llm-service answered 503 llm_service_unavailable: busy',
      ]);
      target.on('GET /hang', () => new Promise(() => undefined));
      await expect(c.get('/hang')).rejects.toMatchObject({ code: 'timeout', retryable: true });
      target.on('GET /ok', () => ({ body: { a: 1 } }));
      await expect(c.get('/ok')).resolves.toEqual({ a: 1 });
    } finally {
      c.close();
      await target.stop();
    }
  });
});
