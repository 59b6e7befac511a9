import type { TaskExecutor } from '../executor';
import { notAvailableExecutor } from '../not-available/not-available';
import type { AiExecutorDeps } from './ai-deps';
import { createClassificationExecutor } from './classification.executor';
import { createClassifyAndExtractExecutor } from './classify-and-extract.executor';
import { createExtractionExecutor } from './extraction.executor';
import { createLlmExecutor } from './llm.executor';
import { createSummarizationExecutor } from './summarization.executor';

export const AI_TASK_TYPES = ['classification_task', 'extraction_task', 'llm_task', 'summarization_task', 'classify_and_extract'] as const;
export type AiTaskType = (typeof AI_TASK_TYPES)[number];

/**
 * The five AI executors over the LLM service. Without an LLM client (a
 * registry built for tests of other task types) they fail as not_available.
 */
export function buildAiExecutors(deps: AiExecutorDeps | undefined): Record<AiTaskType, TaskExecutor> {
  if (!deps) return Object.fromEntries(AI_TASK_TYPES.map((t) => [t, notAvailableExecutor(t)])) as Record<AiTaskType, TaskExecutor>;
  return {
    classification_task: createClassificationExecutor(deps),
    extraction_task: createExtractionExecutor(deps),
    llm_task: createLlmExecutor(deps),
    summarization_task: createSummarizationExecutor(deps),
    classify_and_extract: createClassifyAndExtractExecutor(deps),
  };
}
