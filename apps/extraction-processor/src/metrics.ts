import type { Metrics } from '@docflow/service-kit';

export type ExtractionMetrics = ReturnType<typeof createExtractionMetrics>;

/** The processor's Prometheus series. */
export function createExtractionMetrics(metrics: Metrics) {
  return {
    jobs: metrics.counter('extraction_jobs_total', 'Extraction jobs finished, by type and outcome', ['job_type', 'status']),
    duration: metrics.histogram('extraction_job_duration_seconds', 'Time from start to result of an extraction job', ['job_type', 'status'], [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]),
    inFlight: metrics.gauge('extraction_jobs_in_flight', 'Extraction jobs running now'),
    redelivered: metrics.counter('extraction_jobs_requeued_total', 'Jobs handed back to the queue (unreachable dependency or shutdown)', ['job_type', 'reason']),
    llmCost: metrics.counter('extraction_llm_cost_total', 'Cost reported by the LLM service for extraction jobs', ['job_type']),
    llmTokens: metrics.counter('extraction_llm_tokens_total', 'Tokens used by extraction jobs', ['job_type']),
  };
}
