import type { TaskExecutor } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { classificationTypeOf, classifyNodeText } from './classify-node';
import { flagOf, modelTypeOf, promptDataOf } from './node-config';
import { requireNodeText } from './node-text';
import { callWithPrompt, extractionConfidence, genericExtractionPrompt, loadPrompt, resultOf } from './prompt-calls';

/**
 * `classify_and_extract` (spec 2.7): classifies the document, then (with
 * extract_after_classify, the default) extracts with the prompt it matched,
 * or, with no match, every field the document states.
 */
export function createClassifyAndExtractExecutor(deps: AiExecutorDeps): TaskExecutor {
  return async (ctx) => {
    const type = classificationTypeOf(ctx);
    const extractAfter = flagOf(ctx, 'extract_after_classify', true);
    const source = await requireNodeText(ctx, deps);
    const { classification: c, match, usage } = await classifyNodeText(ctx, deps, source, { type });
    let extraction: { result: unknown; confidence: number | null; promptId: number | null } = { result: null, confidence: null, promptId: null };
    if (extractAfter) {
      const prompt = match?.matched_prompt_id ? await loadPrompt(ctx, deps, match.matched_prompt_id) : genericExtractionPrompt(type === 'document_type' ? c.label : null);
      const outputFormat = prompt.stored ? prompt.rtio.outputFormat : 'json';
      const answer = await callWithPrompt(ctx, deps, { prompt, documentText: source.text, outputFormat, promptData: promptDataOf(ctx), modelType: modelTypeOf(ctx), taskHint: 'extract' });
      usage.add(answer);
      const result = resultOf(answer, outputFormat);
      extraction = { result, confidence: extractionConfidence(result), promptId: prompt.stored?.id ?? null };
    }
    const totals = usage.value;
    return {
      output: {
        classification: {
          type: c.label ?? 'unknown',
          confidence: c.confidence,
          classification_type: type,
          category: c.category,
          key_features: c.key_features,
          reasoning: c.reasoning,
          matched_prompt_id: match?.matched_prompt_id ?? null,
          prompt_title: match?.matched_prompt_title ?? null,
          match_confidence: match?.match_confidence ?? 0,
        },
        extraction_result: extraction.result,
        extraction_confidence: extraction.confidence,
        extraction_prompt_id: extraction.promptId,
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
