import express from 'express';
import type { AddressInfo } from 'node:net';
import http from 'node:http';

/** One job the fake router received. */
export interface ReceivedJob {
  job_id: string;
  job_type: string;
  payload: Record<string, unknown>;
  token?: string;
  apiKey: string | undefined;
}

export type FakeRouterMode = 'queue' | 'broker_down' | 'duplicate';

/**
 * A loopback server speaking the router's job API (spec 4.16): POST
 * /api/v1/jobs answers 200 and records the job, or 503 (its broker is down),
 * or 409 (duplicate). Closing it makes the router unreachable.
 */
export class FakeRouter {
  readonly jobs: ReceivedJob[] = [];
  mode: FakeRouterMode = 'queue';
  private readonly seen = new Set<string>();
  private server: http.Server | undefined;

  private constructor(readonly apiKey: string) {}

  static async start(apiKey: string): Promise<FakeRouter> {
    const router = new FakeRouter(apiKey);
    const app = express();
    app.use(express.json({ limit: '5mb' }));
    app.post('/api/v1/jobs', (req, res) => {
      const body = req.body as Omit<ReceivedJob, 'apiKey'>;
      const apiKey = req.header('x-api-key');
      if (apiKey !== router.apiKey) {
        res.status(401).json({ error: 'unauthorized', message: 'Invalid x-api-key', details: {} });
        return;
      }
      if (router.mode === 'broker_down') {
        res.status(503).json({ error: 'broker_unavailable', message: 'Message broker is not connected', details: {} });
        return;
      }
      if (router.mode === 'duplicate' || router.seen.has(body.job_id)) {
        res.status(409).json({ error: 'conflict', message: `Job ${body.job_id} already exists`, details: { job_id: body.job_id } });
        return;
      }
      router.seen.add(body.job_id);
      router.jobs.push({ ...body, apiKey });
      res.status(200).json({ job_id: body.job_id, success: true, message: 'Job queued on workflow_queue' });
    });
    router.server = http.createServer(app);
    await new Promise<void>((resolve) => router.server?.listen(0, '127.0.0.1', resolve));
    return router;
  }

  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('fake router is not listening');
    return `http://127.0.0.1:${address.port}`;
  }

  job(jobId: string): ReceivedJob | undefined {
    return this.jobs.find((j) => j.job_id === jobId);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A port on which nothing listens (the router is down). */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
