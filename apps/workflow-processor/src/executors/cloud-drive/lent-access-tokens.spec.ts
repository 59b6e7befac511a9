import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runWithContext, silentLogger } from '@docflow/service-kit';
import { LentAccessTokens } from './lent-access-tokens';

describe('LentAccessTokens', () => {
  let server: http.Server;
  const seen: http.IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ access_token: 'ya29.lent', expires_at: new Date(Date.now() + 3_600_000).toISOString() }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('borrows the token with the service key under the run’s correlation id', async () => {
    const tokens = new LentAccessTokens({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, serviceKey: 'svc-key-0123456789', logger: silentLogger });
    const lent = await runWithContext({ correlationId: 'corr-drive-7' }, () => tokens.accessToken(7));
    expect(lent.accessToken).toBe('ya29.lent');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ 'x-service-key': 'svc-key-0123456789', 'x-correlation-id': 'corr-drive-7' });
  });
});
