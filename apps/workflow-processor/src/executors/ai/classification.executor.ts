import type { TaskExecutor } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { classificationTypeOf, classifyNodeText } from './classify-node';
import { flagOf } from './node-config';
import { requireNodeText } from './node-text';

/**
 * `classification_task` (spec 2.7): classification_type document_type
 * (built-in types and the user's prompts, then matching against the
 * prompts), sentiment or topic. `prompt_title` and `section` name the
 * matched prompt when there is one (at least 0.7), else `prompt_title` is
 * null and `section` is the class's section.
 */
export function createClassificationExecutor(deps: AiExecutorDeps): TaskExecutor {
  return async (ctx) => {
    const type = classificationTypeOf(ctx);
    const includeConfidence = flagOf(ctx, 'include_confidence', true);
    const returnMultiple = flagOf(ctx, 'return_multiple', false);
    const source = await requireNodeText(ctx, deps);
    const { classification: c, match, usage } = await classifyNodeText(ctx, deps, source, { type, returnMultiple });
    const totals = usage.value;
    const confidence = includeConfidence ? c.confidence : null;
    return {
      output: {
        prompt_title: match?.matched_prompt_title ?? null,
        section: match?.matched_prompt_section ?? c.section,
        confidence,
        classification: {
          classification_type: type,
          label: c.label,
          ...(type === 'document_type' ? { document_type: c.label ?? 'unknown' } : {}),
          category: c.category,
          section: c.section,
          key_features: c.key_features,
          confidence,
          reasoning: c.reasoning,
          ...(match ?? {}),
          ...(returnMultiple ? { alternatives: c.alternatives } : {}),
        },
        ...(source.documentId !== null ? { document_id: source.documentId } : {}),
        tokens_used: totals.tokens_used,
        cost: totals.cost,
        provider: totals.provider,
        model: totals.model,
      },
      cost: totals.cost,
    };
  };
}
