import type { ModelType } from '@docflow/contracts';
import { answerObject, type ExtractCall, type ExtractResult, type InternalPrompt } from '@docflow/llm-client';
import { renderRtioMessages, type RtioPrompt, toRtioPrompt } from '@docflow/rtio';
import { NodeFailure, type NodeContext } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { asNodeFailures } from './ai-failures';
import { userIdOf } from './node-config';

export type OutputFormat = 'json' | 'text';

/** A prompt ready to render: a stored RTIO prompt, or text written in the node. */
export interface PreparedPrompt {
  rtio: RtioPrompt;
  /** The stored prompt, when there is one. */
  stored: InternalPrompt | null;
}

/** Loads a stored prompt the run's user can see and reads its RTIO parts. */
export async function loadPrompt(ctx: NodeContext, deps: AiExecutorDeps, promptId: number): Promise<PreparedPrompt> {
  const userId = userIdOf(ctx);
  if (userId === undefined) throw new NodeFailure('configuration_error', `Cannot load prompt ${promptId}: the run has no user`);
  const stored = await asNodeFailures(() => deps.content.prompt(promptId, userId, { signal: ctx.signal }));
  const rtio = toRtioPrompt(stored);
  if (!rtio) throw new NodeFailure('validation_error', `Prompt ${promptId} has no roles, tasks or instructions to run`);
  return { rtio, stored };
}

/** A prompt written in the node (prompt_text): the user's words, with the output format of the node. */
export function inlinePrompt(text: string, outputFormat: OutputFormat): PreparedPrompt {
  return { rtio: { roles: [{ role: 'user', prompt: text }], tasks: [], instructions: [], outputFormat }, stored: null };
}

/** The generic extraction used when no prompt is named: every field the document states, as JSON. */
export function genericExtractionPrompt(documentType?: string | null): PreparedPrompt {
  const what = documentType && documentType !== 'unknown' ? `this ${documentType}` : 'the document';
  return {
    rtio: {
      roles: [],
      tasks: [`Extract the key information of ${what}: names, dates, amounts, identifiers and other stated facts.`],
      instructions: ['Use short snake_case field names.', 'Copy values exactly as written; leave out anything the document does not state.'],
      outputFormat: 'json',
    },
    stored: null,
  };
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

function substitute(text: string, data: Record<string, unknown> | undefined): string {
  if (!data) return text;
  return text.replace(PLACEHOLDER, (match, key: string) => {
    if (!(key in data)) return match;
    const v = data[key];
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

export interface PromptCall {
  prompt: PreparedPrompt;
  documentText: string;
  outputFormat: OutputFormat;
  promptData?: Record<string, unknown>;
  modelType?: ModelType;
  taskHint?: ExtractCall['task_hint'];
}

/**
 * One extract call in the messages form, rendered by @docflow/rtio (the one
 * renderer every caller uses). `prompt_data` fills `{{key}}` placeholders of
 * the prompt and is given to the model as context.
 */
export async function callWithPrompt(ctx: NodeContext, deps: AiExecutorDeps, call: PromptCall): Promise<ExtractResult> {
  const rendered = renderRtioMessages(
    { ...call.prompt.rtio, outputFormat: call.outputFormat },
    { documentText: call.documentText, ...(call.promptData && Object.keys(call.promptData).length ? { extraContext: `Values for this run (JSON): ${JSON.stringify(call.promptData)}` } : {}) },
  );
  const messages = rendered.map((m) => ({ role: m.role, content: substitute(m.content, call.promptData) }));
  const request: ExtractCall = {
    messages,
    output_format: call.outputFormat,
    ...(call.taskHint ? { task_hint: call.taskHint } : {}),
    ...(call.modelType ? { model_type: call.modelType } : {}),
  };
  return asNodeFailures(() => deps.llm.extract(request, { signal: ctx.signal }));
}

/** The answer as the node's result: the JSON object when JSON was asked for and given, else the content as sent. */
export function resultOf(answer: ExtractResult, outputFormat: OutputFormat): unknown {
  if (outputFormat === 'json') return answerObject(answer.content) ?? answer.content;
  return typeof answer.content === 'string' ? answer.content : JSON.stringify(answer.content);
}

/**
 * A confidence for an extraction: the model's own `confidence` when it gave
 * one in [0, 1], else the share of top-level fields it filled (a measure of
 * completeness); null for text.
 */
export function extractionConfidence(result: unknown): number | null {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
  const obj = result as Record<string, unknown>;
  const own = obj['confidence'];
  if (typeof own === 'number' && own >= 0 && own <= 1) return own;
  const keys = Object.keys(obj);
  if (keys.length === 0) return 0;
  const filled = keys.filter((k) => {
    const v = obj[k];
    return v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0);
  }).length;
  return Math.round((filled / keys.length) * 10000) / 10000;
}
