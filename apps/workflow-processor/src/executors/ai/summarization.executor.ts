import { answerObject, countWords, limitWords } from '@docflow/llm-client';
import type { TaskExecutor } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { asNodeFailures } from './ai-failures';
import { enumOf, modelTypeOf, positiveNumberOf } from './node-config';
import { requireNodeText } from './node-text';

export const SUMMARY_TYPES = ['brief', 'detailed', 'bullet_points'] as const;
export type SummaryType = (typeof SUMMARY_TYPES)[number];

/** The instruction for each summary type (worded so the local engine reads the same style and limit a model does). */
export function summaryInstruction(type: SummaryType, maxWords: number): string {
  switch (type) {
    case 'brief':
      return `Summarize the document below in a brief summary of at most ${maxWords} words. Write plain prose.`;
    case 'detailed':
      return `Write a detailed summary of the document below, covering each of its main statements, in at most ${maxWords} words.`;
    case 'bullet_points':
      return `Summarize the document below as bullet points, each on its own line starting with "- ", using at most ${maxWords} words in total.`;
    default: {
      const never: never = type;
      throw new Error(`unknown summary type ${String(never)}`);
    }
  }
}

/**
 * `summarization_task` (spec 2.7): summary_type (brief, detailed,
 * bullet_points), max_length in words (default 500). Text from
 * text/text_input/content or a Docflow document. A summary longer than
 * max_length is cut at that many words (`truncated: true`).
 */
export function createSummarizationExecutor(deps: AiExecutorDeps): TaskExecutor {
  return async (ctx) => {
    const summaryType = enumOf(ctx, 'summary_type', SUMMARY_TYPES, 'brief');
    const maxWords = Math.floor(positiveNumberOf(ctx, 'max_length', 500));
    const modelType = modelTypeOf(ctx);
    const source = await requireNodeText(ctx, deps);
    const answer = await asNodeFailures(() =>
      deps.llm.extract(
        { prompt_template: summaryInstruction(summaryType, maxWords), content: source.text, task_hint: 'summarize', output_format: 'text', ...(modelType ? { model_type: modelType } : {}) },
        { signal: ctx.signal },
      ),
    );
    const obj = answerObject(answer.content);
    const raw = typeof answer.content === 'string' ? answer.content : typeof obj?.['summary'] === 'string' ? obj['summary'] : JSON.stringify(answer.content);
    const limited = limitWords(raw.trim(), maxWords);
    ctx.logger.info('summary written', { nodeId: ctx.nodeId, provider: answer.provider, words: countWords(limited.text) });
    return {
      output: {
        summary: limited.text,
        word_count: countWords(limited.text),
        summary_type: summaryType,
        truncated: limited.truncated,
        ...(source.documentId !== null ? { document_id: source.documentId } : {}),
        provider: answer.provider,
        model: answer.model,
        tokens_used: answer.usage.total_tokens,
        cost: answer.cost,
      },
      cost: answer.cost,
    };
  };
}
