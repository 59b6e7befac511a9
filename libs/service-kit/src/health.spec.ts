import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpHealthCheck, runHealthChecks } from './health';

/** A service whose /_health answers `status` (the path it was asked for is recorded). */
async function serviceAnswering(status: number): Promise<{ url: string; paths: string[]; close(): Promise<void> }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    res.statusCode = req.url === '/_health' ? status : 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('httpHealthCheck', () => {
  it('passes when the called service answers 204 on /_health, with or without a trailing slash on its URL', async () => {
    const service = await serviceAnswering(204);
    try {
      const report = await runHealthChecks([httpHealthCheck('router', service.url), httpHealthCheck('router again', `${service.url}/`)]);
      expect(report).toEqual({ healthy: true, failing: [] });
      expect(service.paths).toEqual(['/_health', '/_health']);
    } finally {
      await service.close();
    }
  });

  it('fails, naming the service, when it answers 503', async () => {
    const service = await serviceAnswering(503);
    try {
      const report = await runHealthChecks([httpHealthCheck('llm-service', service.url)]);
      expect(report.healthy).toBe(false);
      expect(report.failing).toEqual([{ name: 'llm-service', error: `${service.url}/_health answered 503` }]);
    } finally {
      await service.close();
    }
  });

  it('fails when nothing listens there', async () => {
    const service = await serviceAnswering(204);
    await service.close();
    const report = await runHealthChecks([httpHealthCheck('data-shield', service.url)]);
    expect(report.failing.map((f) => f.name)).toEqual(['data-shield']);
  });
});
