import express from 'express';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { type JobStatus, type JobStatusResponse, type JobType, queueForJobType } from '@docflow/contracts';

/** One job the fake router received. */
export interface ReceivedJob {
  job_id: string;
  job_type: JobType;
  payload: Record<string, unknown>;
  apiKey: string | undefined;
}

export type FakeRouterMode = 'queue' | 'broker_down' | 'duplicate';

interface StoredJob {
  job: ReceivedJob;
  status: JobStatus;
  result: Record<string, unknown> | null;
  error: string | null;
}

/**
 * A loopback server speaking the router's job API (spec 4.16), for the
 * public API's tests. POST /api/v1/jobs answers 200 and records the job, or
 * 503 (mode `broker_down`), or 409 (mode `duplicate`, or a job id it already
 * holds); GET /api/v1/jobs/{job_id} answers what the test stored with
 * `settle`. A wrong X-API-Key is 401. Closing it makes the router unreachable.
 */
export class FakeRouter {
  readonly jobs: ReceivedJob[] = [];
  /** The X-Correlation-Id each job was submitted with. */
  readonly correlationIds = new Map<string, string | undefined>();
  mode: FakeRouterMode = 'queue';
  private readonly stored = new Map<string, StoredJob>();
  private server: http.Server | undefined;

  private constructor(readonly apiKey: string) {}

  static async start(apiKey: string): Promise<FakeRouter> {
    const router = new FakeRouter(apiKey);
    const app = express();
    app.use(express.json({ limit: '5mb' }));
    app.use((req, res, next) => {
      if (req.header('x-api-key') === router.apiKey) return next();
      res.status(401).json({ error: 'unauthorized', message: 'Invalid x-api-key', details: {} });
    });
    app.post('/api/v1/jobs', (req, res) => {
      const body = req.body as Omit<ReceivedJob, 'apiKey'>;
      if (router.mode === 'broker_down') {
        res.status(503).json({ error: 'broker_unavailable', message: 'Message broker is not connected', details: {} });
        return;
      }
      if (router.mode === 'duplicate' || router.stored.has(body.job_id)) {
        res.status(409).json({ error: 'conflict', message: `Job ${body.job_id} already exists`, details: { job_id: body.job_id } });
        return;
      }
      const job = { ...body, apiKey: req.header('x-api-key') };
      router.jobs.push(job);
      router.correlationIds.set(body.job_id, req.header('x-correlation-id'));
      router.stored.set(body.job_id, { job, status: 'queued', result: null, error: null });
      res.status(200).json({ job_id: body.job_id, success: true, message: `Job queued on ${queueForJobType(body.job_type)}` });
    });
    app.get('/api/v1/jobs/:job_id', (req, res) => {
      const stored = router.stored.get(req.params['job_id'] ?? '');
      if (!stored) {
        res.status(404).json({ error: 'not_found', message: 'Job not found', details: {} });
        return;
      }
      const at = '2025-01-01T00:00:00.000Z';
      const body: JobStatusResponse = {
        job_id: stored.job.job_id,
        success: true,
        message: `Job is ${stored.status}`,
        status: stored.status,
        job_type: stored.job.job_type,
        result: stored.result,
        error: stored.error,
        metadata: { status: stored.status, created_at: at, updated_at: at, queue: queueForJobType(stored.job.job_type), completed_at: null },
      };
      res.json(body);
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

  /** What the router holds for the job from now on, as its results consumer would have stored it. */
  settle(jobId: string, update: { status: JobStatus; result?: Record<string, unknown> | null; error?: string | null }): void {
    const stored = this.stored.get(jobId);
    if (!stored) throw new Error(`the fake router has no job ${jobId}`);
    stored.status = update.status;
    stored.result = update.result ?? null;
    stored.error = update.error ?? null;
  }

  forget(jobId: string): void {
    this.stored.delete(jobId);
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
