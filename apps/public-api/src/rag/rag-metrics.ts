import type { Metrics } from '@docflow/service-kit';

export type IndexOutcome = 'completed' | 'failed' | 'skipped' | 'retried';

/** What the RAG feature reports on /metrics. */
export interface RagMetrics {
  indexJobs(outcome: IndexOutcome): void;
  indexDuration(seconds: number): void;
  chunksWritten(count: number): void;
  queryStage(stage: 'embedding' | 'retrieval' | 'answer', seconds: number): void;
}

/** The metric already in the registry (a second app over the same Metrics), or a new one. */
function once<T>(metrics: Metrics, name: string, make: () => T): T {
  return (metrics.registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function createRagMetrics(metrics: Metrics): RagMetrics {
  const jobs = once(metrics, 'rag_index_jobs_total', () => metrics.counter('rag_index_jobs_total', 'RAG indexing jobs by outcome', ['outcome'] as const));
  const duration = once(metrics, 'rag_index_duration_seconds', () =>
    metrics.histogram('rag_index_duration_seconds', 'Time to index one document (text wait, chunking, embeddings, writes)', [], [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]),
  );
  const chunks = once(metrics, 'rag_chunks_written_total', () => metrics.counter('rag_chunks_written_total', 'Chunks written by RAG indexing'));
  const query = once(metrics, 'rag_query_stage_seconds', () =>
    metrics.histogram('rag_query_stage_seconds', 'Time of each stage of a RAG query', ['stage'] as const, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  );
  return {
    indexJobs: (outcome) => jobs.inc({ outcome }),
    indexDuration: (seconds) => duration.observe(seconds),
    chunksWritten: (count) => chunks.inc(count),
    queryStage: (stage, seconds) => query.observe({ stage }, seconds),
  };
}
