import type { Counter } from 'prom-client';
import type { Metrics } from '@docflow/service-kit';

export interface RouterMetrics {
  jobsSubmitted: Counter<'job_type'>;
  results: Counter<'status'>;
}

export function createRouterMetrics(metrics: Metrics): RouterMetrics {
  return {
    jobsSubmitted: metrics.counter('router_jobs_submitted_total', 'Jobs accepted and queued, by job type', ['job_type']),
    results: metrics.counter('router_results_total', 'Results messages consumed, by reported status', ['status']),
  };
}
