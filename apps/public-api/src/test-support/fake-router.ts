import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { type JobStatus, type JobType, queueForJobType } from '@docflow/contracts';
import { HttpTarget, type TargetHit, type TargetReply, type TargetRoute } from '@docflow/testing';

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
 * A loopback server (HttpTarget) speaking the router's job API (spec 4.16), for the
 * public API's tests. POST /api/v1/jobs answers 200 and records the job, or
 * 503 (mode `broker_down`), or 409 (mode `duplicate`, or a job id it already
 * holds). The public API never reads a job back from the router (it owns
 * each job's outcome). A wrong X-API-Key is 401. Closing it makes the router unreachable.
 */
export class FakeRouter {
  readonly jobs: ReceivedJob[] = [];
  /** Job ids named in POST /api/v1/jobs/purge (account deletions), in order. */
  readonly purged: string[] = [];
  /** How many purge requests it answered. */
  purgeRequests = 0;
  /** How many jobs each POST /api/v1/jobs/batch carried, in order. */
  readonly batches: number[] = [];
  /** The X-Correlation-Id each job was submitted with (in a batch: its `correlation_id`). */
  readonly correlationIds = new Map<string, string | undefined>();
  mode: FakeRouterMode = 'queue';
  private readonly stored = new Map<string, StoredJob>();

  private constructor(
    readonly apiKey: string,
    private readonly target: HttpTarget,
  ) {}

  static async start(apiKey: string): Promise<FakeRouter> {
    const router = new FakeRouter(apiKey, await HttpTarget.start());
    const keyed =
      (route: TargetRoute): TargetRoute =>
      (hit) =>
        header(hit, 'x-api-key') === router.apiKey ? route(hit) : { status: 401, body: { error: 'unauthorized', message: 'Invalid x-api-key', details: {} } };
    router.target
      .on(
        'POST /api/v1/jobs',
        keyed((hit) => router.submit(hit)),
      )
      .on(
        'POST /api/v1/jobs/batch',
        keyed((hit) => router.submitBatch(hit)),
      )
      .on(
        'POST /api/v1/jobs/purge',
        keyed((hit) => router.purge(hit)),
      )
      .otherwise(keyed(() => ({ status: 404, body: { error: 'not_found', message: 'Not found', details: {} } })));
    return router;
  }

  get url(): string {
    return this.target.url('');
  }

  job(jobId: string): ReceivedJob | undefined {
    return this.jobs.find((j) => j.job_id === jobId);
  }

  close(): Promise<void> {
    return this.target.stop();
  }

  private submit(hit: TargetHit): TargetReply {
    return this.take(hit.json as Omit<ReceivedJob, 'apiKey'>, header(hit, 'x-api-key'), header(hit, 'x-correlation-id'));
  }

  /** POST /api/v1/jobs/batch: per job what POST /api/v1/jobs would answer; 503 as a whole in mode `broker_down`. */
  private submitBatch(hit: TargetHit): TargetReply {
    const jobs = (hit.json as { jobs: (Omit<ReceivedJob, 'apiKey'> & { correlation_id?: string })[] }).jobs;
    if (this.mode === 'broker_down') return { status: 503, body: { error: 'unavailable', message: 'Database is not reachable', details: {} } };
    this.batches.push(jobs.length);
    const results = jobs.map(({ correlation_id, ...job }) => {
      const reply = this.take(job, header(hit, 'x-api-key'), correlation_id);
      return { job_id: job.job_id, status: reply.status ?? 200, body: reply.body };
    });
    return { body: { results } };
  }

  private take(body: Omit<ReceivedJob, 'apiKey'>, apiKey: string | undefined, correlationId: string | undefined): TargetReply {
    if (this.mode === 'broker_down') return { status: 503, body: { error: 'broker_unavailable', message: 'Message broker is not connected', details: {} } };
    if (this.mode === 'duplicate' || this.stored.has(body.job_id)) {
      return { status: 409, body: { error: 'conflict', message: `Job ${body.job_id} already exists`, details: { job_id: body.job_id } } };
    }
    const job = { ...body, apiKey };
    this.jobs.push(job);
    this.correlationIds.set(body.job_id, correlationId);
    this.stored.set(body.job_id, { job, status: 'queued', result: null, error: null });
    return { status: 200, body: { job_id: body.job_id, success: true, message: `Job queued on ${queueForJobType(body.job_type)}` } };
  }

  private purge(hit: TargetHit): TargetReply {
    const ids = (hit.json as { job_ids?: unknown }).job_ids;
    if (!Array.isArray(ids)) return { status: 400, body: { error: 'validation_error', message: 'job_ids must be an array', details: {} } };
    this.purgeRequests += 1;
    if (this.mode === 'broker_down') return { status: 503, body: { error: 'unavailable', message: 'Database is not reachable', details: {} } };
    let deleted = 0;
    for (const id of ids as string[]) {
      this.purged.push(id);
      if (this.stored.delete(id)) deleted += 1;
    }
    return { body: { deleted } };
  }
}

function header(hit: TargetHit, name: string): string | undefined {
  const value = hit.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A port on which nothing listens (the router is down). */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
