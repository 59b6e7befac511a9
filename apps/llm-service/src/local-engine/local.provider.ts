import { LOCAL_MODEL } from '../pricing/pricing';
import { ChatRequest, ChatResult, EmbedResult, LlmProvider } from '../providers/provider';
import { Classification, classify, parseCandidates } from './classify';
import { hashedEmbedding } from './embed';
import { extractFields, requestedShape } from './extract-fields';
import { isLeaf, Shape } from './json-scan';
import { Summary, summarize, summaryOptionsFrom } from './summarize';
import { LocalPlan, planLocalTask } from './task';
import { contentTokens, splitSentences } from './text';

export const LOCAL_ENGINE_NOTE = "Docflow's local extractive engine (no language model is configured for this model type)";

/** A rough token count (4 characters a token), so usage and metrics stay meaningful. */
export function approxTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function leafKeys(shape: Shape): string[] {
  return Object.entries(shape)
    .filter(([, v]) => v === null || isLeaf(v))
    .map(([k]) => k);
}

function fillByName(shape: Shape | undefined, fallback: Record<string, unknown>, pick: (key: string) => unknown): Record<string, unknown> {
  if (!shape || leafKeys(shape).length === 0) return fallback;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) out[key] = pick(key.toLowerCase()) ?? null;
  return out;
}

function summaryJson(summary: Summary, instructions: string): Record<string, unknown> {
  return fillByName(requestedShape(instructions, { outputOnly: true }), { summary: summary.text, word_count: summary.wordCount, summary_type: summary.style }, (key) => {
    if (/point|bullet|highlight|sentences/.test(key)) return summary.sentences;
    if (/count|length|words/.test(key)) return summary.wordCount;
    if (/style|type/.test(key)) return summary.style;
    if (/summary|text|abstract|overview/.test(key)) return summary.text;
    return undefined;
  });
}

function classificationJson(result: Classification, instructions: string): Record<string, unknown> {
  const explanation = result.label
    ? `The candidate whose label words and description terms the text holds most (confidence: that similarity, not a share among the candidates); ${LOCAL_ENGINE_NOTE}.`
    : `No candidate shares a word with the text; ${LOCAL_ENGINE_NOTE}.`;
  return fillByName(requestedShape(instructions, { outputOnly: true }), { label: result.label, section: result.section, confidence: result.confidence, scores: result.scores }, (key) => {
    if (/confidence|score|probabilit|certainty/.test(key)) return result.confidence;
    if (/section/.test(key)) return result.section;
    if (/reason|explanation|rationale|justification/.test(key)) return explanation;
    if (/title|label|type|category|class|prediction/.test(key)) return result.label;
    return undefined;
  });
}

function chatAnswer(plan: LocalPlan, messages: ChatRequest['messages']): string {
  const question = plan.question;
  const context = messages
    .filter((m) => m.role !== 'assistant' && m.content !== question)
    .map((m) => m.content)
    .concat(plan.document !== question ? [plan.document] : [])
    .join('\n\n');
  const wanted = new Set(contentTokens(question));
  const ranked = splitSentences(context)
    .map((s) => ({ ...s, score: contentTokens(s.text).filter((t) => wanted.has(t)).length }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, 3)
    .sort((a, b) => a.index - b.index);
  if (ranked.length === 0) {
    return `This answer comes from ${LOCAL_ENGINE_NOTE}. It can only quote the context it is given, and no passage of the context matches the question.`;
  }
  return [`This answer comes from ${LOCAL_ENGINE_NOTE}. The most relevant passages of the provided context:`, ...ranked.map((s) => `- ${s.text}`)].join('\n');
}

/**
 * The built-in engine for model types with no provider URL: deterministic,
 * offline, no weights. It never writes new prose: it ranks, matches and
 * copies what the given text contains (see task.ts for how it picks a task).
 */
export class LocalEngine implements LlmProvider {
  readonly name = 'local' as const;
  readonly model = LOCAL_MODEL;

  async chat(req: ChatRequest): Promise<ChatResult> {
    const json = req.expectsJson === true || req.jsonMode === true;
    const plan = planLocalTask(req.messages, req.hints, json);
    const content = this.answer(plan, req, json);
    const prompt = req.messages.map((m) => m.content).join('\n');
    return { content, model: this.model, usage: { prompt_tokens: approxTokens(prompt), completion_tokens: approxTokens(content) } };
  }

  async embed(texts: string[]): Promise<EmbedResult> {
    return {
      embeddings: texts.map((t) => hashedEmbedding(t)),
      model: this.model,
      usage: { prompt_tokens: texts.reduce((n, t) => n + approxTokens(t), 0), completion_tokens: 0 },
    };
  }

  private answer(plan: LocalPlan, req: ChatRequest, json: boolean): string {
    switch (plan.task) {
      case 'summarize': {
        const summary = summarize(plan.document, summaryOptionsFrom(plan.instructions));
        return json ? JSON.stringify(summaryJson(summary, plan.instructions)) : summary.text;
      }
      case 'classify': {
        const result = classify(plan.document, parseCandidates(plan.instructions));
        if (json) return JSON.stringify(classificationJson(result, plan.instructions));
        return result.label ?? `No candidate label matches the text (${LOCAL_ENGINE_NOTE}).`;
      }
      case 'extract': {
        const fields = extractFields(plan.document, plan.instructions);
        if (json) return JSON.stringify(fields);
        return Object.entries(fields)
          .map(([k, v]) => `${k}: ${v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
          .join('\n');
      }
      case 'chat':
        return chatAnswer(plan, req.messages);
      default: {
        const unreachable: never = plan.task;
        throw new Error(`unknown local task ${String(unreachable)}`);
      }
    }
  }
}
