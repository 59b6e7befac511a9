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
  it('posts JSON with the service key under the base path, tokenises the answered spans here and restores in the same scope', async () => {
    const seen: { path?: string; key?: string; body?: unknown } = {};
    const gw = await gateway((req, body, res) => {
      Object.assign(seen, { path: req.url, key: req.headers['x-service-key'], body: JSON.parse(body) });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ entities: [[['EMAIL', 5, 11]], [['EMAIL', 0, 6]], []], entity_counts: { EMAIL: 2 }, layers: ['L1'] }));
    });
    try {
      const shield = new HttpDataShield({ baseUrl: gw.url, serviceKey: 'k' });
      const out = await shield.tokenise(['mail a@b.io', 'a@b.io', 'none'], { tenant: '7' });
      expect(out).toMatchObject({ entityCounts: { EMAIL: 2 }, layers: ['L1'] });
      expect(out.texts[0]).toMatch(/^mail EMAIL_[0-9a-f]{8}$/);
      // One scope: the same value, the same token.
      expect(out.texts[1]).toBe(out.texts[0]!.slice(5));
      expect(out.texts[2]).toBe('none');
      expect(out.scope.restore(`to ${out.texts[1]} not EMAIL_0123abcd`)).toBe('to a@b.io not EMAIL_0123abcd');
      expect(seen).toEqual({ path: '/prefix/api/v1/entities', key: 'k', body: { texts: ['mail a@b.io', 'a@b.io', 'none'], tenant: '7' } });
      // Another call, another scope: other tokens.
      const again = await shield.tokenise(['mail a@b.io', 'a@b.io', 'none']);
      expect(again.texts[0]).not.toBe(out.texts[0]);
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
