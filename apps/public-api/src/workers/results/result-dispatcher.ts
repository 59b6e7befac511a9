import type { ResultMessage } from '@docflow/contracts';
import type { Logger } from '@docflow/service-kit';
import { type ExtractionJobResultsService, type ExtractionResultOutcome, isExtractionJobId } from '../../documents';
import { type ExecutionResultsService, type ExecutionResultOutcome, executionIdOf } from '../../workflows';

/** The job families whose results the public API owns; each has exactly one handler. */
export const RESULT_FAMILIES = ['workflow', 'extraction'] as const;
export type ResultFamily = (typeof RESULT_FAMILIES)[number];

export interface ResultHandlers {
  /** task_based_workflow jobs (`wf_<execution id>[_resume_<n>]`, or a message naming its execution_id): the execution record. */
  workflow: Pick<ExecutionResultsService, 'apply'>;
  /** classification, document_extraction and OCR jobs (`cls_`, `ext_`, `ocr_` ids): the job's row. */
  extraction: Pick<ExtractionJobResultsService, 'apply'>;
}

export type DispatchOutcome =
  | { family: 'workflow'; result: ExecutionResultOutcome }
  | { family: 'extraction'; result: ExtractionResultOutcome }
  /** No family names the job: nothing the public API owns; acked and dropped. */
  | { family: null; result: { outcome: 'unknown_job'; jobId: string } };

/**
 * The job family of a result: the public API names its jobs, so the job id
 * says whose it is (an extraction prefix first; then a workflow execution,
 * from `execution_id` or a `wf_` id). Families never overlap.
 */
export function resultFamilyOf(msg: Pick<ResultMessage, 'job_id' | 'execution_id'>): ResultFamily | undefined {
  if (isExtractionJobId(msg.job_id)) return 'extraction';
  if (executionIdOf(msg) !== undefined) return 'workflow';
  return undefined;
}

/** Hands each result on `public_api_results_queue` to its family's handler (the results consumer's `results`). */
export class ResultDispatcher {
  constructor(
    private readonly handlers: ResultHandlers,
    private readonly logger: Logger,
  ) {}

  async apply(msg: ResultMessage): Promise<DispatchOutcome> {
    const family = resultFamilyOf(msg);
    switch (family) {
      case 'workflow':
        return { family, result: await this.handlers.workflow.apply(msg) };
      case 'extraction':
        return { family, result: await this.handlers.extraction.apply(msg) };
      case undefined:
        this.logger.warn('result for a job of no known family; dropped', { jobId: msg.job_id, status: msg.status });
        return { family: null, result: { outcome: 'unknown_job', jobId: msg.job_id } };
      default: {
        const never: never = family;
        throw new Error(`unhandled result family ${String(never)}`);
      }
    }
  }
}
