import { UsageTally } from '@docflow/llm-client';
import { NodeFailure, type NodeContext, type TaskExecutor } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { configValue, enumOf, flagOf, modelTypeOf, promptDataOf, promptIdOf } from './node-config';
import { findDocumentSource, findGivenText, readSource } from './node-text';
import { callWithPrompt, inlinePrompt, loadPrompt, type PreparedPrompt, resultOf } from './prompt-calls';

const OUTPUT_FORMATS = ['json', 'text'] as const;

/** The inputs an llm_task sends: the document's text (document_id / file_url) and the given text (text_input, text, content), each when present. */
async function inputParts(ctx: NodeContext, deps: AiExecutorDeps): Promise<{ label: string; text: string }[]> {
  const parts: { label: string; text: string }[] = [];
  const document = findDocumentSource(ctx, deps);
  if (document) {
    const read = await readSource(ctx, deps, document);
    if (read.text.trim()) parts.push({ label: read.title ?? `document ${read.documentId ?? ''}`.trim(), text: read.text });
  }
  const given = findGivenText(ctx);
  if (given !== undefined) parts.push({ label: 'text_input', text: given });
  return parts;
}

async function choosePrompt(ctx: NodeContext, deps: AiExecutorDeps, outputFormat: 'json' | 'text' | undefined): Promise<PreparedPrompt> {
  const promptId = promptIdOf(ctx);
  if (promptId !== undefined) return loadPrompt(ctx, deps, promptId);
  const text = configValue(ctx, 'prompt_text');
  if (typeof text === 'string' && text.trim()) return inlinePrompt(text, outputFormat ?? 'json');
  throw new NodeFailure('configuration_error', 'llm_task needs prompt_id or prompt_text');
}

/**
 * `llm_task` (spec 2.7): a stored prompt or prompt_text run on the node's
 * inputs (a document, text_input, prompt_data). With
 * process_combined_inputs (default) all inputs go in one request; without
 * it each input gets its own request and `result` is the list of answers.
 */
export function createLlmExecutor(deps: AiExecutorDeps): TaskExecutor {
  return async (ctx) => {
    const explicitFormat = configValue(ctx, 'output_format') === undefined ? undefined : enumOf(ctx, 'output_format', OUTPUT_FORMATS, 'json');
    const combined = flagOf(ctx, 'process_combined_inputs', true);
    const modelType = modelTypeOf(ctx);
    const promptData = promptDataOf(ctx);
    const prompt = await choosePrompt(ctx, deps, explicitFormat);
    const outputFormat = explicitFormat ?? prompt.rtio.outputFormat;
    const parts = await inputParts(ctx, deps);
    const tally = new UsageTally();
    const run = async (documentText: string) => {
      const answer = await callWithPrompt(ctx, deps, { prompt, documentText, outputFormat, promptData, modelType });
      tally.add(answer);
      return resultOf(answer, outputFormat);
    };
    let result: unknown;
    if (combined || parts.length <= 1) {
      result = await run(parts.length > 1 ? parts.map((p) => `[${p.label}]\n${p.text}`).join('\n\n') : (parts[0]?.text ?? ''));
    } else {
      const results: unknown[] = [];
      for (const part of parts) results.push(await run(part.text));
      result = results;
    }
    const usage = tally.value;
    return {
      output: { result, tokens_used: usage.tokens_used, cost: usage.cost, prompt_id: prompt.stored?.id ?? null, provider: usage.provider, model: usage.model },
      cost: usage.cost,
    };
  };
}
