import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataShieldUnavailableError, HttpDataShield } from './data-shield.client';

/** A loopback gateway whose answer each test chooses; `hold` never answers. */
async function gateway(answer: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => answer(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
  return { url, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

describe('HttpDataShield (over libs/internal-http)', () => {
  it('posts JSON with the service key under the base path and reads the answer', async () => {
    const seen: { path?: string; key?: string; body?: unknown } = {};
    const gw = await gateway((req, body, res) => {
      Object.assign(seen, { path: req.url, key: req.headers['x-service-key'], body: JSON.parse(body) });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ scope_id: 'dss1.x', texts: ['EMAIL_0123abcd'], entity_counts: { EMAIL: 1 }, layers: ['L1'] }));
    });
    try {
      const shield = new HttpDataShield({ baseUrl: gw.url, serviceKey: 'k' });
      expect(await shield.tokenise(['a@b.io'], { tenant: '7' })).toEqual({ scopeId: 'dss1.x', texts: ['EMAIL_0123abcd'], entityCounts: { EMAIL: 1 }, layers: ['L1'] });
      expect(seen).toEqual({ path: '/prefix/api/v1/tokenise', key: 'k', body: { texts: ['a@b.io'], tenant: '7' } });
    } finally {
      await gw.close();
    }
  });

  it('fails closed when the gateway does not answer within the timeout, or answers what is not JSON', async () => {
    const hold = await gateway(() => undefined);
    const garbage = await gateway((_req, _body, res) => res.end('<html>'));
    try {
      await expect(new HttpDataShield({ baseUrl: hold.url, serviceKey: 'k', timeoutMs: 200 }).tokenise(['x'])).rejects.toThrow(/unreachable \(.*within 200 ms\)/);
      await expect(new HttpDataShield({ baseUrl: garbage.url, serviceKey: 'k' }).tokenise(['x'])).rejects.toBeInstanceOf(DataShieldUnavailableError);
    } finally {
      await Promise.all([hold.close(), garbage.close()]);
    }
  });
});
