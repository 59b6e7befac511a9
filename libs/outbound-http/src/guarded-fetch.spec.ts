import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGuardedFetch } from './guarded-fetch';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    else if (req.url === '/big') res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('createGuardedFetch (the MCP transports’ fetch)', () => {
  it('refuses a loopback address unless its host:port is allowed', async () => {
    await expect(createGuardedFetch({ allowedHosts: [] })(`${base}/x`)).rejects.toThrow(/not allowed/);
    const res = await createGuardedFetch({ allowedHosts: [new URL(base).host] })(`${base}/x`, { method: 'POST', headers: { authorization: 'Bearer t' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ method: 'POST', auth: 'Bearer t' });
  });

  it('never follows a redirect, and cuts a body past the cap', async () => {
    const f = createGuardedFetch({ allowedHosts: [new URL(base).host], maxResponseBytes: 1000 });
    await expect(f(`${base}/redirect`)).rejects.toThrow(/redirects are not followed/);
    const big = await f(`${base}/big`);
    await expect(big.text()).rejects.toThrow(/exceeds the 1000 byte limit/);
  });
});
