import { JOB_TYPES, JobMessageV1, JobType, ResultMessage } from '@docflow/contracts';
import { HandlerRegistry } from '@docflow/messaging';

/** The job types this processor consumes from `extraction_queue`. */
export type ExtractionJobType = Exclude<JobType, 'task_based_workflow'>;
export const EXTRACTION_JOB_TYPES: readonly ExtractionJobType[] = JOB_TYPES.filter(
  (t): t is ExtractionJobType => t !== 'task_based_workflow',
);

/** Publishes the results message of a job to `results_queue`. */
export type PublishResult = (result: ResultMessage) => Promise<void>;

/**
 * Until the extraction engine lands, each type ends its job as `failed` with
 * a clear reason: accepted work is answered, never dropped or faked.
 */
function notAvailable(jobType: ExtractionJobType, publish: PublishResult) {
  return async (job: JobMessageV1): Promise<void> => {
    await publish({
      job_id: job.job_id,
      status: 'failed',
      error: `${jobType} jobs are not available in this build yet`,
      error_type: 'not_available',
      outputs: {},
      task_states: {},
      emitted_at: new Date().toISOString(),
    });
  };
}

/** One handler per job type; refuses to build with a type missing. */
export function buildJobHandlers(publish: PublishResult): HandlerRegistry<ExtractionJobType, JobMessageV1> {
  const registry = new HandlerRegistry<ExtractionJobType, JobMessageV1>('extraction job');
  for (const type of EXTRACTION_JOB_TYPES) registry.register(type, notAvailable(type, publish));
  registry.assertComplete(EXTRACTION_JOB_TYPES);
  return registry;
}
