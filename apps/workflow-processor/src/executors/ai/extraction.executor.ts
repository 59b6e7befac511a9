import { isPlainObject } from '@docflow/workflow';
import { NodeFailure, type NodeContext, type TaskExecutor } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { enumOf, flagOf, modelTypeOf, promptDataOf, promptIdOf } from './node-config';
import { requireNodeText } from './node-text';
import { callWithPrompt, extractionConfidence, genericExtractionPrompt, loadPrompt, type PreparedPrompt, resultOf } from './prompt-calls';

const OUTPUT_FORMATS = ['json', 'text'] as const;

function matchedIdIn(value: unknown): number | undefined {
  if (!isPlainObject(value)) return undefined;
  const direct = value['matched_prompt_id'];
  if (typeof direct === 'number' && direct > 0) return direct;
  const nested = value['classification'];
  if (isPlainObject(nested) && typeof nested['matched_prompt_id'] === 'number' && nested['matched_prompt_id'] > 0) return nested['matched_prompt_id'];
  return undefined;
}

/** The prompt an upstream classification_task or classify_and_extract matched, if any. */
export function classificationPromptId(ctx: NodeContext): number | undefined {
  for (const [key, value] of Object.entries(ctx.scope)) {
    if (key === ctx.nodeId) continue;
    const id = matchedIdIn(value);
    if (id !== undefined) return id;
  }
  return undefined;
}

async function choosePrompt(ctx: NodeContext, deps: AiExecutorDeps): Promise<PreparedPrompt> {
  const configured = promptIdOf(ctx);
  if (flagOf(ctx, 'use_classification_prompt', false)) {
    const matched = classificationPromptId(ctx);
    if (matched !== undefined) return loadPrompt(ctx, deps, matched);
    if (configured === undefined) {
      throw new NodeFailure('configuration_error', 'use_classification_prompt is set, but no upstream classification matched a prompt and no prompt_id is given');
    }
  }
  return configured !== undefined ? loadPrompt(ctx, deps, configured) : genericExtractionPrompt();
}

/**
 * `extraction_task` (spec 2.7): runs a stored prompt (prompt_id, or the one
 * an upstream classification matched) on the document, JSON by default.
 * Without a prompt it extracts every stated field.
 */
export function createExtractionExecutor(deps: AiExecutorDeps): TaskExecutor {
  return async (ctx) => {
    const outputFormat = enumOf(ctx, 'output_format', OUTPUT_FORMATS, 'json');
    const modelType = modelTypeOf(ctx);
    const promptData = promptDataOf(ctx);
    const prompt = await choosePrompt(ctx, deps);
    const source = await requireNodeText(ctx, deps);
    const answer = await callWithPrompt(ctx, deps, { prompt, documentText: source.text, outputFormat, promptData, modelType, taskHint: 'extract' });
    const result = resultOf(answer, outputFormat);
    return {
      output: {
        extraction_result: result,
        confidence: extractionConfidence(result),
        tokens_used: answer.usage.total_tokens,
        cost: answer.cost,
        prompt_id: prompt.stored?.id ?? null,
        prompt_title: prompt.stored?.title ?? null,
        ...(source.documentId !== null ? { document_id: source.documentId } : {}),
        provider: answer.provider,
        model: answer.model,
      },
      cost: answer.cost,
    };
  };
}
