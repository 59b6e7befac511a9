import { JOB_TYPES, type JobMessageV1, type JobType, type ResultMessage } from '@docflow/contracts';
import { HandlerRegistry, InFlightJobs, resultMessage, type MessageMeta, type ResultBody } from '@docflow/messaging';
import { verifyJobUser } from '@docflow/internal-auth';
import { UsageTally } from '@docflow/llm-client';
import type { Logger } from '@docflow/service-kit';
import type { ExtractionMetrics } from '../metrics';
import { runClassification } from './classification.job';
import { runDocumentExtraction } from './document-extraction.job';
import { parseExtractionPayload } from './extraction-payload';
import { judgeFailure } from './failures';
import type { JobContext, JobServices } from './job-context';
import { runOcr } from './ocr.job';

/** The job types this processor consumes from `extraction_queue`. */
export type ExtractionJobType = Exclude<JobType, 'task_based_workflow'>;
export const EXTRACTION_JOB_TYPES: readonly ExtractionJobType[] = JOB_TYPES.filter((t): t is ExtractionJobType => t !== 'task_based_workflow');

/** Publishes the results message of a job to `results_queue`. */
export type PublishResult = (result: ResultMessage) => Promise<void>;

type JobWork = (ctx: JobContext, abortJob: (reason: unknown) => void) => Promise<Record<string, unknown>>;

const WORK: Record<ExtractionJobType, JobWork> = {
  classification: runClassification,
  document_extraction: runDocumentExtraction,
  OCR: runOcr,
};

export interface JobRunnerDeps {
  services: JobServices;
  publish: PublishResult;
  metrics: ExtractionMetrics;
  logger: Logger;
  maxDocuments: number;
  /** INTERNAL_SERVICE_JWT_SECRET: a job acts for its `user_id` only when the platform signed it (spec 5). */
  jobUserSecret: string;
  /** Deliveries a job gets while a dependency is unreachable before it is failed. Default 3. */
  maxDeliveries?: number;
}

class ShutdownAbort extends Error {
  override readonly name = 'ShutdownAbort';
}

/**
 * Runs extraction jobs: validates the payload, reports `processing`, runs
 * the type's work and publishes `completed` or `failed`. A job stopped by
 * shutdown publishes nothing and is requeued; one whose dependency is
 * unreachable is requeued until its last delivery.
 */
export class ExtractionJobRunner {
  readonly registry = new HandlerRegistry<ExtractionJobType, JobMessageV1>('extraction job');
  /** The running jobs; their signal is aborted at shutdown. */
  readonly jobs = new InFlightJobs();

  constructor(private readonly deps: JobRunnerDeps) {
    for (const type of EXTRACTION_JOB_TYPES) this.registry.register(type, (job, meta) => this.run(type, job, meta));
    this.registry.assertComplete(EXTRACTION_JOB_TYPES);
  }

  /** The consumer's handler: one handler per job type, a job of any other type is refused. */
  readonly handle = this.jobs.handler(async (job: JobMessageV1, meta: MessageMeta): Promise<void> => {
    await this.registry.dispatch(job.job_type as ExtractionJobType, job, meta);
  });

  /** Why running jobs stop at shutdown. */
  static shutdownReason(): Error {
    return new ShutdownAbort('the processor is shutting down');
  }

  /** Stops every running job without a result (their messages go back to the queue). */
  abortAll(): void {
    this.jobs.abortAll(ExtractionJobRunner.shutdownReason());
  }

  /** Resolves when no job is running, or after `ms`. */
  idle(ms: number): Promise<void> {
    return this.jobs.idle(ms);
  }

  get inFlight(): number {
    return this.jobs.size;
  }

  private async run(type: ExtractionJobType, job: JobMessageV1, meta: MessageMeta): Promise<void> {
    const { metrics, publish } = this.deps;
    const logger = this.deps.logger.child({ jobId: job.job_id, jobType: type, deliveryCount: meta.deliveryCount });
    const started = performance.now();
    const finish = (status: string) => {
      metrics.jobs.inc({ job_type: type, status });
      metrics.duration.observe({ job_type: type, status }, (performance.now() - started) / 1000);
    };
    const parsed = parseExtractionPayload(job.payload, this.deps.maxDocuments);
    if (parsed.ok && !verifyJobUser(this.deps.jobUserSecret, job.job_id, parsed.value.user_id, parsed.value.user_signature)) {
      logger.warn('extraction job with an unsigned user refused', { userId: parsed.value.user_id });
      await publish(resultMessage(this.failed(job, 'validation_error', `Invalid ${type} job: user_id ${parsed.value.user_id} is not signed by the platform`)));
      finish('failed');
      return;
    }
    if (!parsed.ok) {
      logger.warn('invalid extraction job', { errors: parsed.errors });
      await publish(resultMessage(this.failed(job, 'validation_error', `Invalid ${type} job: ${parsed.errors.join('; ')}`)));
      finish('failed');
      return;
    }
    if (this.jobs.signal.aborted) throw ExtractionJobRunner.shutdownReason();
    const jobAbort = new AbortController();
    metrics.inFlight.inc();
    const ctx: JobContext = {
      job,
      payload: parsed.value,
      modelType: parsed.value.config?.model_type,
      signal: AbortSignal.any([this.jobs.signal, jobAbort.signal]),
      logger,
      services: this.deps.services,
      usage: new UsageTally(),
    };
    try {
      await publish(resultMessage({ job_id: job.job_id, status: 'processing' }));
      const outputs = await WORK[type](ctx, (reason) => jobAbort.abort(reason));
      const usage = ctx.usage.value;
      metrics.llmCost.inc({ job_type: type }, usage.cost);
      metrics.llmTokens.inc({ job_type: type }, usage.tokens_used);
      await publish(resultMessage({ job_id: job.job_id, status: 'completed', outputs }));
      logger.info('extraction job completed', { documents: parsed.value.documents.length, cost: usage.cost, tokensUsed: usage.tokens_used });
      finish('completed');
    } catch (err) {
      await this.onFailure(type, job, meta, err, ctx, logger, finish);
    } finally {
      metrics.inFlight.dec();
    }
  }

  private async onFailure(type: ExtractionJobType, job: JobMessageV1, meta: MessageMeta, err: unknown, ctx: JobContext, logger: Logger, finish: (s: string) => void): Promise<void> {
    if (this.jobs.signal.aborted) {
      this.deps.metrics.redelivered.inc({ job_type: type, reason: 'shutdown' });
      throw err instanceof Error ? err : new Error(String(err));
    }
    const verdict = judgeFailure(err);
    switch (verdict.kind) {
      case 'aborted':
        this.deps.metrics.redelivered.inc({ job_type: type, reason: 'aborted' });
        throw err instanceof Error ? err : new Error(String(err));
      case 'transient':
        if (meta.deliveryCount < (this.deps.maxDeliveries ?? 3)) {
          logger.warn('dependency unreachable; the job goes back to the queue', { error: verdict.message });
          this.deps.metrics.redelivered.inc({ job_type: type, reason: 'unreachable' });
          throw err instanceof Error ? err : new Error(String(err));
        }
        break;
      case 'failed':
        if (verdict.unexpected) logger.error('extraction job failed unexpectedly', { error: verdict.message, stack: err instanceof Error ? err.stack : undefined });
        break;
      default: {
        const never: never = verdict;
        throw new Error(`unknown verdict ${JSON.stringify(never)}`);
      }
    }
    const usage = ctx.usage.value;
    this.deps.metrics.llmCost.inc({ job_type: type }, usage.cost);
    logger.warn('extraction job failed', { errorType: verdict.errorType, error: verdict.message });
    await this.deps.publish(resultMessage({ ...this.failed(job, verdict.errorType, verdict.message), outputs: { tokens_used: usage.tokens_used, cost: usage.cost } }));
    finish('failed');
  }

  private failed(job: JobMessageV1, errorType: string, error: string): ResultBody {
    return { job_id: job.job_id, status: 'failed', error, error_type: errorType, outputs: {} };
  }
}
