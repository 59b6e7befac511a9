import {
  type CandidatePrompt,
  candidatesFor,
  CLASSIFICATION_TYPES,
  type ClassificationType,
  classifyText,
  matchPrompt,
  type PromptMatch,
  type TextClassification,
  UsageTally,
} from '@docflow/llm-client';
import type { NodeContext } from '../executor';
import type { AiExecutorDeps } from './ai-deps';
import { asNodeFailures } from './ai-failures';
import { enumOf, modelTypeOf, userIdOf } from './node-config';
import type { NodeText } from './node-text';

export interface NodeClassification {
  type: ClassificationType;
  classification: TextClassification;
  /** Phase 2, for document_type only. */
  match: PromptMatch | null;
  usage: UsageTally;
}

export function classificationTypeOf(ctx: NodeContext): ClassificationType {
  return enumOf(ctx, 'classification_type', CLASSIFICATION_TYPES, 'document_type');
}

/**
 * Classifies the node's text by its classification_type. For document_type
 * the candidates include the user's visible prompts and the text is then
 * matched against them (spec 4.5's two phases); sentiment and topic are
 * one call.
 */
export async function classifyNodeText(ctx: NodeContext, deps: AiExecutorDeps, source: NodeText, options: { type: ClassificationType; returnMultiple?: boolean }): Promise<NodeClassification> {
  const modelType = modelTypeOf(ctx);
  const userId = userIdOf(ctx);
  const usage = new UsageTally();
  const prompts: CandidatePrompt[] = options.type === 'sentiment' || userId === undefined ? [] : await asNodeFailures(() => deps.content.visiblePrompts(userId, { signal: ctx.signal }));
  const phase1 = await asNodeFailures(() =>
    classifyText(deps.llm, {
      text: source.text,
      ...(source.title ? { title: source.title } : {}),
      candidates: candidatesFor(options.type, prompts),
      type: options.type,
      returnMultiple: options.returnMultiple,
      modelType,
      signal: ctx.signal,
    }),
  );
  usage.add(phase1.answer);
  let match: PromptMatch | null = null;
  if (options.type === 'document_type') {
    const phase2 = await asNodeFailures(() =>
      matchPrompt(deps.llm, { text: source.text, ...(source.title ? { title: source.title } : {}), prompts, classification: phase1.classification, modelType, signal: ctx.signal }),
    );
    if (phase2.answer) usage.add(phase2.answer);
    match = phase2.match;
  }
  return { type: options.type, classification: phase1.classification, match, usage };
}
