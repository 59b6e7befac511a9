import type { Counter } from 'prom-client';
import type { JobStatus, ResultMessage } from '@docflow/contracts';
import { isPlainObject, type Logger, type Metrics } from '@docflow/service-kit';
import type { ExtractionJobType } from './classification-jobs.dto';
import type { PgTransaction } from '@docflow/persistence';
import type { ClassificationJobsRepository, ExtractionApplyOutcome, ExtractionResultUpdate } from './classification-jobs.repository';

/** The prefix of each extraction job's id (`cls_<uuid>`...): the public API names these jobs, so the id says whose result it is. */
export const EXTRACTION_JOB_ID_PREFIX: Record<ExtractionJobType, string> = { classification: 'cls', document_extraction: 'ext', OCR: 'ocr' };
const EXTRACTION_JOB_ID = new RegExp(`^(?:${Object.values(EXTRACTION_JOB_ID_PREFIX).join('|')})_`);

/** Whether a job id is one the public API gives its extraction jobs. */
export function isExtractionJobId(jobId: string): boolean {
  return EXTRACTION_JOB_ID.test(jobId);
}

export type ExtractionResultOutcome =
  | { outcome: 'applied'; jobId: string; status: JobStatus }
  /** Stale, duplicate, or the job is already completed or failed: nothing changed. */
  | { outcome: 'ignored'; jobId: string; status: JobStatus }
  | { outcome: 'unknown_job'; jobId: string };

export interface ExtractionJobResultsDeps {
  repo: Pick<ClassificationJobsRepository, 'applyResult'>;
  logger: Logger;
  metrics: Metrics;
}

function resultsCounter(metrics: Metrics): Counter<'status' | 'outcome'> {
  const name = 'public_api_extraction_results_total';
  const existing = metrics.registry.getSingleMetric(name) as Counter<'status' | 'outcome'> | undefined;
  return existing ?? metrics.counter(name, 'Extraction job results messages by reported status and outcome', ['status', 'outcome']);
}

/**
 * Writes the extraction processor's results (classification, document
 * extraction, OCR) into the job's own row, which GET /jobs/{job_id}/status
 * reads: the extraction family's handler of the results consumer.
 */
export class ExtractionJobResultsService {
  private readonly counter: Counter<'status' | 'outcome'>;

  constructor(private readonly deps: ExtractionJobResultsDeps) {
    this.counter = resultsCounter(deps.metrics);
  }

  /** Applies one message; resolves once its effect is committed (or it was found to be a no-op). */
  async apply(msg: ResultMessage): Promise<ExtractionResultOutcome> {
    return this.report(msg, await this.deps.repo.applyResult(updateOf(msg)));
  }

  /** Applies one message of a batch inside the batch's transaction `tx`; answers what to do once `tx` committed (count, log), which gives the outcome. */
  async applyIn(tx: PgTransaction, msg: ResultMessage): Promise<() => ExtractionResultOutcome> {
    const applied = await this.deps.repo.applyResult(updateOf(msg), tx);
    return () => this.report(msg, applied);
  }

  private report(msg: ResultMessage, applied: ExtractionApplyOutcome): ExtractionResultOutcome {
    const meta = { jobId: msg.job_id, reported: msg.status, sequence: sequenceOf(msg) };
    switch (applied.outcome) {
      case 'applied':
        this.counter.inc({ status: msg.status, outcome: 'applied' });
        this.deps.logger.info('extraction job result applied', { ...meta, from: applied.from });
        return { outcome: 'applied', jobId: msg.job_id, status: msg.status };
      case 'ignored':
        this.counter.inc({ status: msg.status, outcome: 'ignored' });
        this.deps.logger.info('stale or duplicate extraction job result ignored', { ...meta, current: applied.from });
        return { outcome: 'ignored', jobId: msg.job_id, status: applied.from };
      case 'unknown':
        this.counter.inc({ status: msg.status, outcome: 'unknown_job' });
        this.deps.logger.warn('result for an unknown extraction job; dropped', meta);
        return { outcome: 'unknown_job', jobId: msg.job_id };
      default: {
        const never: never = applied;
        throw new Error(`unexpected outcome ${JSON.stringify(never)}`);
      }
    }
  }
}

function sequenceOf(msg: ResultMessage): number | null {
  return typeof msg.sequence === 'number' && Number.isSafeInteger(msg.sequence) && msg.sequence >= 0 ? msg.sequence : null;
}

/** The row update a result message asks for. */
function updateOf(msg: ResultMessage): ExtractionResultUpdate {
  const failed = msg.status === 'failed';
  return {
    jobId: msg.job_id,
    status: msg.status,
    outputs: isPlainObject(msg.outputs) ? msg.outputs : null,
    error: failed ? (typeof msg.error === 'string' && msg.error !== '' ? msg.error.slice(0, 10000) : 'The job failed') : null,
    sequence: sequenceOf(msg),
  };
}
