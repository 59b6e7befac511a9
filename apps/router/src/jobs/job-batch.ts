import type { JobRequest } from '@docflow/contracts';
import { BadRequestError, sanitizeCorrelationId } from '@docflow/service-kit';
import { parseJobRequest } from './job-request';
import { SUBMIT_BATCH_MAX } from './jobs.service';

/** One job of POST /api/v1/jobs/batch: its request as /api/v1/jobs checks it, or the error that request would get. */
export type BatchItem = { ok: true; req: JobRequest; correlationId?: string } | { ok: false; jobId?: string; error: unknown };

/**
 * The body of POST /api/v1/jobs/batch: `{jobs: [...]}`, 1 to SUBMIT_BATCH_MAX
 * jobs, each a body of POST /api/v1/jobs plus an optional `correlation_id`
 * (the caller's request that made it, carried by its message). A body not of
 * that shape is 400 as a whole; a job that /api/v1/jobs would refuse gets
 * that refusal as its own outcome and the others go on.
 */
export function parseJobBatch(body: unknown): BatchItem[] {
  const jobs = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { jobs?: unknown }).jobs : undefined;
  if (!Array.isArray(jobs) || jobs.length === 0 || jobs.length > SUBMIT_BATCH_MAX) {
    throw BadRequestError.withErrors('Invalid job batch', [`jobs must be an array of 1 to ${SUBMIT_BATCH_MAX} job requests`]);
  }
  return jobs.map((job: unknown): BatchItem => {
    let fields = job;
    let correlationId: string | undefined;
    if (job !== null && typeof job === 'object' && !Array.isArray(job) && 'correlation_id' in job) {
      const { correlation_id, ...rest } = job as Record<string, unknown>;
      correlationId = sanitizeCorrelationId(correlation_id);
      fields = rest;
    }
    try {
      return { ok: true, req: parseJobRequest(fields), ...(correlationId ? { correlationId } : {}) };
    } catch (error) {
      const jobId = (fields as { job_id?: unknown } | null)?.job_id;
      return { ok: false, ...(typeof jobId === 'string' ? { jobId } : {}), error };
    }
  });
}
