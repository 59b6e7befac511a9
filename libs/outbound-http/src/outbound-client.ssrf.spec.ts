import { createOutboundClient, type OutboundRequestOptions } from './outbound-client';
import type { HostResolver } from './guarded-lookup';
import { OutboundRequestError } from './outbound-error';
import { forbidSocketConnects, startTestServer, type TestServer } from './test-support/test-server';

async function failure(promise: Promise<unknown>): Promise<OutboundRequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundRequestError) return error;
    throw error;
  }
  throw new Error('request succeeded but should have been refused');
}

describe('outbound client: refusals before connect', () => {
  let canary: TestServer;
  let connectSpy: jest.SpyInstance | undefined;

  beforeAll(async () => {
    canary = await startTestServer();
  });
  afterAll(async () => {
    await canary.close();
  });
  afterEach(() => {
    connectSpy?.mockRestore();
    connectSpy = undefined;
  });

  const targets = (port: number): string[] => [
    `http://127.0.0.1:${port}/`,
    `http://localhost:${port}/`,
    `http://2130706433:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://127.1:${port}/`,
    `http://017700000001:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[64:ff9b::7f00:1]:${port}/`,
    `http://[2002:7f00:1::]:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://[fd00:ec2::254]/latest/meta-data/`,
    `http://10.0.0.1/`,
    `http://192.168.1.1/`,
    `https://100.64.0.1/`,
    `file:///etc/passwd`,
    `gopher://127.0.0.1:${port}/_GET%20/`,
    `ftp://127.0.0.1:${port}/`,
    `http://user:pass@127.0.0.1:${port}/`,
  ];

  it('refuses every forbidden target as configuration, opening no socket', async () => {
    const client = createOutboundClient({ allowedHosts: [] });
    connectSpy = forbidSocketConnects();
    for (const url of targets(canary.port)) {
      for (const method of ['GET', 'POST'] as const) {
        const request: OutboundRequestOptions = { url, method, body: { a: 1 } };
        const error = await failure(client.request(request));
        expect({ url, kind: error.kind, retryable: error.retryable }).toEqual({ url, kind: 'configuration', retryable: false });
      }
    }
    expect(connectSpy).not.toHaveBeenCalled();
    expect(canary.connections).toBe(0);
  });

  it('refuses a loopback spelling even when another port of it is allowed', async () => {
    const client = createOutboundClient({ allowedHosts: [`127.0.0.1:${canary.port + 1}`] });
    connectSpy = forbidSocketConnects();
    expect((await failure(client.request({ url: `http://127.1:${canary.port}/` }))).kind).toBe('configuration');
    expect(connectSpy).not.toHaveBeenCalled();
    expect(canary.connections).toBe(0);
  });

  it('checks resolved addresses at connect time: a name resolving to loopback never connects', async () => {
    const resolved: string[] = [];
    const resolveHost: HostResolver = (hostname) => {
      resolved.push(hostname);
      return Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    };
    const client = createOutboundClient({ resolveHost });
    for (const scheme of ['http', 'https']) {
      const error = await failure(client.request({ url: `${scheme}://canary.example:${canary.port}/` }));
      expect(error).toMatchObject({ kind: 'configuration', retryable: false });
      expect(error.message).toBe('Destination canary.example is not allowed or does not resolve to a public address');
    }
    expect(resolved).toEqual(['canary.example', 'canary.example']);
    expect(canary.connections).toBe(0);
  });

  it('answers alike for an internal name, a missing one and an internal literal: no DNS or port oracle', async () => {
    const answers: HostResolver[] = [
      () => Promise.resolve([{ address: '10.20.30.40', family: 4 }]),
      () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
      () => Promise.resolve([{ address: '169.254.169.254', family: 4 }]),
      () => Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })),
      () => Promise.reject(Object.assign(new Error('ENODATA'), { code: 'ENODATA' })),
      () => Promise.resolve([]),
    ];
    const seen = new Set<string>();
    for (const resolveHost of answers) {
      for (const port of [22, 5432, canary.port]) {
        const error = await failure(createOutboundClient({ resolveHost }).request({ url: `http://svc.example:${port}/` }));
        seen.add(JSON.stringify({ kind: error.kind, retryable: error.retryable, message: error.message, status: error.status }));
      }
    }
    expect([...seen]).toEqual([JSON.stringify({ kind: 'configuration', retryable: false, message: 'Destination svc.example is not allowed or does not resolve to a public address' })]);
    const literal = await failure(createOutboundClient().request({ url: `http://10.20.30.40:5432/` }));
    expect(literal.message).toBe('Destination 10.20.30.40 is not allowed or does not resolve to a public address');
    expect(canary.connections).toBe(0);
  });

  it('maps temporary resolver failures to retryable dns errors', async () => {
    const failing =
      (code: string): HostResolver =>
      () =>
        Promise.reject(Object.assign(new Error(code), { code }));
    const flaky = await failure(createOutboundClient({ resolveHost: failing('EAI_AGAIN') }).request({ url: 'http://flaky.example/' }));
    expect(flaky).toMatchObject({ kind: 'dns', retryable: true });
  });

  it('lets an allowed name resolve to loopback and connects to the address it checked', async () => {
    const resolveHost: HostResolver = () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
    const client = createOutboundClient({ resolveHost, allowedHosts: [`target.example:${canary.port}`] });
    const before = canary.requests.length;
    const response = await client.request({ url: `http://target.example:${canary.port}/named` });
    expect(response.text).toBe('ok');
    expect(canary.requests.slice(before).map((r) => [r.url, r.headers.host])).toEqual([['/named', `target.example:${canary.port}`]]);
  });
});

describe('outbound client: redirects', () => {
  let origin: TestServer;
  let other: TestServer;

  beforeEach(async () => {
    other = await startTestServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ method: request.method, auth: request.headers.authorization ?? null, body: request.body }));
    });
    origin = await startTestServer((request, response) => {
      const target = new URL(request.url, 'http://x').searchParams.get('to');
      const status = Number(new URL(request.url, 'http://x').searchParams.get('status') ?? '302');
      if (request.url.startsWith('/loop')) {
        response.writeHead(302, { location: '/loop' }).end();
        return;
      }
      if (target !== null) {
        response.writeHead(status, { location: target }).end();
        return;
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ method: request.method, auth: request.headers.authorization ?? null, body: request.body }));
    });
  });
  afterEach(async () => {
    await Promise.all([origin.close(), other.close()]);
  });

  const redirectTo = (target: string, status = 302): string => `http://127.0.0.1:${origin.port}/r?status=${status}&to=${encodeURIComponent(target)}`;

  it('refuses a redirect from an allowed host to localhost; the second server sees nothing', async () => {
    const client = createOutboundClient({ allowedHosts: [`127.0.0.1:${origin.port}`] });
    const error = await failure(client.request({ url: redirectTo(`http://localhost:${other.port}/`) }));
    expect(error).toMatchObject({ kind: 'configuration', retryable: false });
    expect(origin.requests).toHaveLength(1);
    expect(other.connections).toBe(0);
  });

  it.each([
    (port: number) => `http://127.0.0.1:${port}/`,
    (port: number) => `http://2130706433:${port}/`,
    (port: number) => `http://[::ffff:7f00:1]:${port}/`,
    () => 'http://169.254.169.254/latest/meta-data/',
    () => 'file:///etc/passwd',
  ])('re-validates every hop: redirect target %# is refused', async (target) => {
    const client = createOutboundClient({ allowedHosts: [`127.0.0.1:${origin.port}`] });
    const error = await failure(client.request({ url: redirectTo(target(other.port), 307) }));
    expect(error.kind).toBe('configuration');
    expect(other.connections).toBe(0);
  });

  it('follows a redirect to a hop that is itself allowed, switching POST to GET on 303', async () => {
    const client = createOutboundClient({ allowedHosts: [`127.0.0.1:${origin.port}`, `127.0.0.1:${other.port}`] });
    const response = await client.request({
      url: redirectTo(`http://127.0.0.1:${other.port}/final`, 303),
      method: 'POST',
      body: { secret: 'payload' },
      headers: { Authorization: 'Bearer t0ken' },
    });
    expect(response.url).toBe(`http://127.0.0.1:${other.port}/final`);
    // a new origin (other port): the Authorization header is not forwarded
    expect(response.body).toEqual({ method: 'GET', auth: null, body: '' });
  });

  it('keeps method, body and Authorization on a same-origin 307', async () => {
    const client = createOutboundClient({ allowedHosts: [`127.0.0.1:${origin.port}`] });
    const response = await client.request({
      url: redirectTo('/final', 307),
      method: 'POST',
      body: { n: 1 },
      headers: { Authorization: 'Bearer t0ken' },
    });
    expect(response.body).toEqual({ method: 'POST', auth: 'Bearer t0ken', body: '{"n":1}' });
    expect(origin.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  it('switches POST to GET on 301 and 302 but keeps PUT', async () => {
    const client = createOutboundClient({ allowedHosts: [`127.0.0.1:${origin.port}`] });
    const posted = await client.request({ url: redirectTo('/final', 301), method: 'POST', body: { n: 1 } });
    expect(posted.body).toMatchObject({ method: 'GET', body: '' });
    const put = await client.request({ url: redirectTo('/final', 302), method: 'PUT', body: { n: 2 } });
    expect(put.body).toMatchObject({ method: 'PUT', body: '{"n":2}' });
  });

  it("strips credential headers, and the caller's sensitive ones, on a redirect to another loopback host", async () => {
    const seen: Record<string, unknown>[] = [];
    const second = await startTestServer((request, response) => {
      seen.push(request.headers);
      if (request.url === '/back') response.writeHead(307, { location: `http://127.0.0.1:${origin.port}/final` }).end();
      else response.end('{}');
    }, '127.0.0.2');
    try {
      const client = createOutboundClient({ allowedHosts: [`127.0.0.1:${origin.port}`, `127.0.0.2:${second.port}`] });
      const headers = { Authorization: 'Bearer t0ken', Cookie: 'sid=1', 'X-Api-Key': 'k3y', 'X-Trace': 'keep-me' };
      await client.request({ url: redirectTo(`http://127.0.0.2:${second.port}/final`, 307), headers, sensitiveHeaders: ['x-api-key'] });
      expect(seen[0]).toMatchObject({ 'x-trace': 'keep-me' });
      for (const name of ['authorization', 'cookie', 'x-api-key']) expect(seen[0]).not.toHaveProperty(name);

      // Same origin: everything is kept.
      const same = await client.request({ url: redirectTo('/final', 307), headers, sensitiveHeaders: ['X-Api-Key'] });
      expect(same.body).toMatchObject({ auth: 'Bearer t0ken' });
      expect(origin.requests.at(-1)?.headers).toMatchObject({ cookie: 'sid=1', 'x-api-key': 'k3y', 'x-trace': 'keep-me' });

      // Out to 127.0.0.2 and back to the first origin: once stripped, stripped for good.
      const back = await client.request({ url: redirectTo(`http://127.0.0.2:${second.port}/back`, 307), headers, sensitiveHeaders: ['x-api-key'] });
      expect(back.body).toMatchObject({ auth: null });
      expect(origin.requests.at(-1)?.headers).not.toHaveProperty('x-api-key');
    } finally {
      await second.close();
    }
  });

  it('stops after maxRedirects hops', async () => {
    const client = createOutboundClient({ allowedHosts: [`127.0.0.1:${origin.port}`], maxRedirects: 3 });
    const error = await failure(client.request({ url: `http://127.0.0.1:${origin.port}/loop` }));
    expect(error).toMatchObject({ kind: 'http', status: 302, retryable: false, message: 'HTTP 302: more than 3 redirects' });
    expect(origin.requests).toHaveLength(4);
  });
});
