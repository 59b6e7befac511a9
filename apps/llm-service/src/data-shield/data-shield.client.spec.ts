import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runWithContext } from '@docflow/service-kit';
import { HttpDataShield } from './data-shield.client';

describe('HttpDataShield', () => {
  let server: http.Server;
  const seen: http.IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ scope_id: 'scope-1', texts: ['<PERSON_1> writes'], entity_counts: { PERSON: 1 }, layers: ['L1'] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('calls the gateway with the service key under the caller’s correlation id (LLM service → Data Shield hop)', async () => {
    const shield = new HttpDataShield({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, serviceKey: 'svc-key-0123456789' });
    const out = await runWithContext({ correlationId: 'corr-shield-3' }, () => shield.tokenise(['Alice writes']));
    expect(out).toMatchObject({ scopeId: 'scope-1', texts: ['<PERSON_1> writes'] });
    expect(seen[0]).toMatchObject({ 'x-service-key': 'svc-key-0123456789', 'x-correlation-id': 'corr-shield-3' });
  });
});
