import { answerObject, type ExtractCall, type InternalPrompt } from '@docflow/llm-client';
import { renderRtioMessages, type RtioPrompt, toRtioPrompt } from '@docflow/rtio';
import { promptIdOf } from './extraction-payload';
import { JobValidationError } from './failures';
import { documentText, forEachDocument, type JobContext, money, requireText } from './job-context';

/** How every document of the job is asked: a stored RTIO prompt, or the prompt text of the job. */
type PromptPlan = { kind: 'stored'; prompt: InternalPrompt; rtio: RtioPrompt; outputFormat: 'json' | 'text' } | { kind: 'inline'; text: string; outputFormat: 'json' | 'text' };

async function planPrompt(ctx: JobContext): Promise<PromptPlan> {
  const config = ctx.payload.config ?? {};
  const promptId = config.prompt_id !== undefined ? promptIdOf(config.prompt_id) : undefined;
  if (promptId !== undefined) {
    const prompt = await ctx.services.content.prompt(promptId, ctx.payload.user_id, { signal: ctx.signal });
    const rtio = toRtioPrompt(prompt);
    if (!rtio) throw new JobValidationError(`Prompt ${promptId} has no roles, tasks or instructions to run`);
    return { kind: 'stored', prompt, rtio, outputFormat: config.output_format ?? rtio.outputFormat };
  }
  if (config.prompt_text?.trim()) return { kind: 'inline', text: config.prompt_text, outputFormat: config.output_format ?? 'json' };
  throw new JobValidationError('document_extraction needs config.prompt_id or config.prompt_text');
}

function requestFor(plan: PromptPlan, text: string): ExtractCall {
  if (plan.kind === 'inline') return { prompt_template: plan.text, content: text, task_hint: 'extract', output_format: plan.outputFormat };
  return { messages: renderRtioMessages({ ...plan.rtio, outputFormat: plan.outputFormat }, { documentText: text }), task_hint: 'extract', output_format: plan.outputFormat };
}

/** `document_extraction`: every document through one prompt; the answer is JSON when the prompt asks for it. */
export async function runDocumentExtraction(ctx: JobContext, abortJob: (reason: unknown) => void): Promise<Record<string, unknown>> {
  const plan = await planPrompt(ctx);
  const documents = await forEachDocument(ctx, abortJob, async (doc) => {
    const source = await documentText(ctx, doc);
    const request = requestFor(plan, requireText(doc.id, source.text));
    const answer = await ctx.services.llm.extract({ ...request, ...(ctx.modelType ? { model_type: ctx.modelType } : {}) }, { signal: ctx.signal });
    ctx.usage.add(answer);
    const result = plan.outputFormat === 'json' ? (answerObject(answer.content) ?? answer.content) : answer.content;
    return {
      document_id: doc.id,
      document_name: source.title,
      extraction_result: result,
      tokens_used: answer.usage.total_tokens,
      cost: money(answer.cost),
      provider: answer.provider,
      model: answer.model,
    };
  });
  const usage = ctx.usage.value;
  return {
    documents,
    ...(plan.kind === 'stored' ? { prompt_id: plan.prompt.id, prompt_title: plan.prompt.title } : {}),
    tokens_used: usage.tokens_used,
    cost: usage.cost,
  };
}
