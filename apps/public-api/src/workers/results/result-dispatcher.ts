import type { ResultMessage } from '@docflow/contracts';
import type { PgTransaction } from '@docflow/persistence';
import type { Logger } from '@docflow/service-kit';
import { type ExtractionJobResultsService, type ExtractionResultOutcome, isExtractionJobId } from '../../documents';
import { type ExecutionResultsService, type ExecutionResultOutcome, executionIdOf } from '../../workflows';

/** The job families whose results the public API owns; each has exactly one handler. */
export const RESULT_FAMILIES = ['workflow', 'extraction'] as const;
export type ResultFamily = (typeof RESULT_FAMILIES)[number];

export interface ResultHandlers {
  /** task_based_workflow jobs (`wf_<execution id>[_resume_<n>]`, or a message naming its execution_id): the execution record. */
  workflow: Pick<ExecutionResultsService, 'apply' | 'applyManyIn' | 'applyAtOnce'>;
  /** classification, document_extraction and OCR jobs (`cls_`, `ext_`, `ocr_` ids): the job's row. */
  extraction: Pick<ExtractionJobResultsService, 'apply' | 'applyIn'>;
}

/** Runs its work in one database transaction (withPgTransaction over the public API's database). */
export type ResultsTransaction = <T>(work: (tx: PgTransaction) => Promise<T>) => Promise<T>;

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
    private readonly transaction: ResultsTransaction,
  ) {}

  /**
   * Applies a batch in one transaction (one commit): the workflow results in
   * one multi-row statement per round (ExecutionResultsService.applyManyIn:
   * the k-th message of each execution in round k, so one execution's
   * messages keep their order), the extraction results one guarded
   * statement each, in job id order; then counts, logs and audits each,
   * answering the outcomes in the batch's order. A batch of workflow results
   * only, one per execution and without step costs (the usual one), is sent
   * as one message (ExecutionResultsService.applyAtOnce: one round trip, one
   * commit, the same statements). A batch of one is applied as `apply` (no
   * explicit transaction: one statement). Throws, having changed nothing,
   * when any statement fails.
   */
  async applyBatch(msgs: readonly ResultMessage[]): Promise<DispatchOutcome[]> {
    const only = msgs.length === 1 ? msgs[0] : undefined;
    if (only) return [await this.apply(only)];
    const families = msgs.map(resultFamilyOf);
    const indexed = msgs.map((msg, i) => ({ msg, i }));
    const workflow = indexed.filter(({ i }) => families[i] === 'workflow');
    // A stable sort: the results of one job keep their order, and every batch locks its rows in one order.
    const extraction = indexed.filter(({ i }) => families[i] === 'extraction').sort((a, b) => (a.msg.job_id < b.msg.job_id ? -1 : a.msg.job_id > b.msg.job_id ? 1 : a.i - b.i));
    if (workflow.length === msgs.length) {
      // The usual batch (workflow results, one per execution, no costs): one message, one round trip, one commit.
      const atOnce = await this.handlers.workflow.applyAtOnce(msgs);
      if (atOnce) return atOnce.map((report) => ({ family: 'workflow', result: report() }));
    }
    const reports = await this.transaction(async (tx) => {
      const done: (() => DispatchOutcome)[] = msgs.map((msg) => () => this.noFamily(msg));
      const applied = await this.handlers.workflow.applyManyIn(
        tx,
        workflow.map((w) => w.msg),
      );
      workflow.forEach((w, k) => {
        const report = applied[k] as () => ExecutionResultOutcome;
        done[w.i] = () => ({ family: 'workflow', result: report() });
      });
      for (const x of extraction) {
        const report = await this.handlers.extraction.applyIn(tx, x.msg);
        done[x.i] = () => ({ family: 'extraction', result: report() });
      }
      return done;
    });
    return reports.map((report) => report());
  }

  private noFamily(msg: ResultMessage): DispatchOutcome {
    this.logger.warn('result for a job of no known family; dropped', { jobId: msg.job_id, status: msg.status });
    return { family: null, result: { outcome: 'unknown_job', jobId: msg.job_id } };
  }

  async apply(msg: ResultMessage): Promise<DispatchOutcome> {
    const family = resultFamilyOf(msg);
    switch (family) {
      case 'workflow':
        return { family, result: await this.handlers.workflow.apply(msg) };
      case 'extraction':
        return { family, result: await this.handlers.extraction.apply(msg) };
      case undefined:
        return this.noFamily(msg);
      default: {
        const never: never = family;
        throw new Error(`unhandled result family ${String(never)}`);
      }
    }
  }
}
