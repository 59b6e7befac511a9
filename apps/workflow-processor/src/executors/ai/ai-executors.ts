import type { DataShieldDiagnostics } from '@docflow/contracts';
import { isPlainObject } from '@docflow/workflow';
import { isPark, isPause, NodeFailure, type TaskExecutor } from '../executor';
import { notAvailableExecutor } from '../not-available/not-available';
import type { AiExecutorDeps } from './ai-deps';
import { createClassificationExecutor } from './classification.executor';
import { createClassifyAndExtractExecutor } from './classify-and-extract.executor';
import { createExtractionExecutor } from './extraction.executor';
import { createLlmExecutor } from './llm.executor';
import { createSummarizationExecutor } from './summarization.executor';
import { nodeShielding } from './data-shield/shield-policy';
import { shieldingLlmClient } from './data-shield/shielding-llm-client';

export const AI_TASK_TYPES = ['classification_task', 'extraction_task', 'llm_task', 'summarization_task', 'classify_and_extract'] as const;
export type AiTaskType = (typeof AI_TASK_TYPES)[number];

/** The entry point each type is for Data Shield's audit rows (spec 4.17 rule 6: document batch actions). */
const ENTRY_POINTS: Record<AiTaskType, string> = {
  classification_task: 'classification',
  extraction_task: 'extraction',
  llm_task: 'llm',
  summarization_task: 'summarization',
  classify_and_extract: 'classification_extraction',
};

/**
 * Data Shield around an AI executor (spec 4.17 rule 7): when the node's
 * `data_shield` or the activity's policy asks for it, every LLM call of the
 * node is shielded (required by a policy: refused rather than sent in clear),
 * for the run's user as tenant, and the tokenised prompts the LLM service
 * reports become the node's `_prompt_diagnostics`.
 */
function withDataShield(taskType: AiTaskType, deps: AiExecutorDeps, make: (deps: AiExecutorDeps) => TaskExecutor): TaskExecutor {
  const plain = make(deps);
  return async (ctx) => {
    const shielding = nodeShielding(ctx.rawConfig, ctx.dataShieldPolicy);
    if ('violation' in shielding) {
      throw new NodeFailure(
        'policy_violation',
        `DATA_SHIELD_POLICY_VIOLATION: node ${ctx.nodeId} would send text to an LLM unshielded (${shielding.violation}), but the activity's data_shield_policy requires Data Shield`,
      );
    }
    if (!shielding.enabled) return plain(ctx);
    const diagnostics: DataShieldDiagnostics[] = [];
    const llm = shieldingLlmClient(
      deps.llm,
      {
        enabled: true,
        ...(shielding.required ? { required: true } : {}),
        ...(shielding.entityTypes ? { entity_types: shielding.entityTypes } : {}),
        ...(ctx.runUserId !== undefined ? { tenant: String(ctx.runUserId), actor_user_id: ctx.runUserId } : {}),
        entry_point: ENTRY_POINTS[taskType],
      },
      diagnostics,
    );
    const outcome = await make({ ...deps, llm })(ctx);
    if (isPause(outcome) || isPark(outcome) || !isPlainObject(outcome.output)) return outcome;
    return { ...outcome, output: { ...outcome.output, _prompt_diagnostics: { shielded: diagnostics.length > 0, calls: diagnostics } } };
  };
}

/**
 * The five AI executors over the LLM service. Without an LLM client (a
 * registry built for tests of other task types) they fail as not_available.
 */
export function buildAiExecutors(deps: AiExecutorDeps | undefined): Record<AiTaskType, TaskExecutor> {
  if (!deps) return Object.fromEntries(AI_TASK_TYPES.map((t) => [t, notAvailableExecutor(t)])) as Record<AiTaskType, TaskExecutor>;
  return {
    classification_task: withDataShield('classification_task', deps, createClassificationExecutor),
    extraction_task: withDataShield('extraction_task', deps, createExtractionExecutor),
    llm_task: withDataShield('llm_task', deps, createLlmExecutor),
    summarization_task: withDataShield('summarization_task', deps, createSummarizationExecutor),
    classify_and_extract: withDataShield('classify_and_extract', deps, createClassifyAndExtractExecutor),
  };
}
