import type { ModelType } from '@docflow/contracts';
import type { ExtractResult, LlmClient } from '../llm-client';
import { BUILT_IN_DOCUMENT_TYPES, type ClassCandidate, documentTypeOfPrompt, promptCandidate, SENTIMENT_CANDIDATES, TOPIC_CANDIDATES, uniqueCandidates } from './candidates';
import { answerObject, confidenceField, stringField, stringList } from './json-answer';
import { keyTerms } from './text-features';
import { type LlmUsageTotals, UsageTally } from './usage';

export const CLASSIFICATION_TYPES = ['document_type', 'sentiment', 'topic'] as const;
export type ClassificationType = (typeof CLASSIFICATION_TYPES)[number];

/** A prompt matches a document at this confidence or above (spec 4.5). */
export const MATCH_THRESHOLD = 0.7;

/** Classification reads the start of a document: enough to tell its type, and cheap. */
export const CLASSIFICATION_TEXT_CHARS = 20000;

/** What a prompt needs to be offered as a candidate. */
export interface CandidatePrompt {
  id: number;
  title: string;
  section: string | null;
  description: string | null;
}

export interface TextClassification {
  /** The chosen label (`document_type`): for document types a built-in type, also when a stored prompt won; null when nothing fits. */
  label: string | null;
  section: string | null;
  category: string;
  key_features: string[];
  confidence: number;
  reasoning: string;
  /** The candidate the label names, when it names one. */
  candidate: ClassCandidate | null;
  /** Other labels the model considered, when asked to return several. */
  alternatives: { label: string; confidence: number | null }[];
}

export interface PromptMatch {
  matched_prompt_id: number | null;
  matched_prompt_title: string | null;
  matched_prompt_section: string | null;
  match_confidence: number;
  match_reasoning: string;
}

interface CallContext {
  modelType?: ModelType;
  signal?: AbortSignal;
}

/** The candidates of a classification type: built-in document types, sentiments or topics, plus the user's prompts for types and topics. */
export function candidatesFor(type: ClassificationType, prompts: readonly CandidatePrompt[]): ClassCandidate[] {
  switch (type) {
    case 'document_type':
      return uniqueCandidates([...BUILT_IN_DOCUMENT_TYPES, ...prompts.map(promptCandidate)]);
    case 'sentiment':
      return [...SENTIMENT_CANDIDATES];
    case 'topic':
      return uniqueCandidates([...TOPIC_CANDIDATES, ...prompts.filter((p) => p.section).map((p) => ({ label: String(p.section), section: p.section, description: p.description ?? '' }))]);
    default: {
      const never: never = type;
      throw new Error(`unknown classification type ${String(never)}`);
    }
  }
}

function candidateJson(candidates: readonly ClassCandidate[]): string {
  return JSON.stringify(candidates.map((c) => ({ label: c.label, ...(c.section ? { section: c.section } : {}), description: c.description })));
}

function documentContent(text: string, title: string | undefined): string {
  const body = text.length > CLASSIFICATION_TEXT_CHARS ? text.slice(0, CLASSIFICATION_TEXT_CHARS) : text;
  return title ? `Title: ${title}\n\n${body}` : body;
}

function findCandidate(candidates: readonly ClassCandidate[], label: string | null): ClassCandidate | null {
  if (!label) return null;
  const key = label.trim().toLowerCase();
  return candidates.find((c) => c.label.trim().toLowerCase() === key) ?? null;
}

const NOUN: Record<ClassificationType, string> = { document_type: 'document type', sentiment: 'sentiment', topic: 'topic' };

/**
 * Phase 1: one extract call (task_hint classify, JSON) that picks the
 * candidate the text fits best and says why. `key_features` falls back to
 * the text's most frequent content words when the model gives none.
 */
export async function classifyText(
  llm: LlmClient,
  input: CallContext & { text: string; title?: string; candidates: readonly ClassCandidate[]; type?: ClassificationType; returnMultiple?: boolean },
): Promise<{ classification: TextClassification; answer: ExtractResult }> {
  const type = input.type ?? 'document_type';
  const noun = NOUN[type];
  const shape: Record<string, unknown> = {
    document_type: `label of the best ${noun}`,
    section: 'section of that label',
    category: 'broad category of the document',
    key_features: ['short phrases from the document that show it'],
    confidence: 0.0,
    reasoning: 'one or two sentences',
    ...(input.returnMultiple ? { alternatives: [{ label: `another possible ${noun}`, confidence: 0.0 }] } : {}),
  };
  const instructions = [
    `Classify the document below: decide which ${noun} it is.`,
    `Candidate labels (JSON: label, section, description):`,
    candidateJson(input.candidates),
    `Choose the candidate that fits best; when none fits, name the ${noun} in a few words and give a low confidence.`,
    'Respond with a single JSON object with exactly these keys:',
    JSON.stringify(shape),
  ].join('\n');
  const answer = await llm.extract(
    { prompt_template: instructions, content: documentContent(input.text, input.title), task_hint: 'classify', output_format: 'json', ...(input.modelType ? { model_type: input.modelType } : {}) },
    { signal: input.signal },
  );
  const obj = answerObject(answer.content);
  const answered = stringField(obj, 'document_type', 'label', 'type', 'classification');
  const chosen = findCandidate(input.candidates, answered);
  const section = stringField(obj, 'section') ?? chosen?.section ?? null;
  let category = stringField(obj, 'category');
  // A category that only repeats the label says nothing: the candidate's section is the category then.
  if (!category || (answered && category.toLowerCase() === answered.toLowerCase())) category = section ?? chosen?.section ?? answered ?? 'General';
  // A stored prompt may win a document type classification; the type is then the built-in type the prompt is for, never its title.
  const promptWon = type === 'document_type' && chosen?.prompt_id !== undefined;
  const candidate = promptWon && chosen ? documentTypeOfPrompt(chosen) : chosen;
  const label = promptWon ? (candidate?.label ?? null) : answered;
  const confidence = label ? (confidenceField(obj, 'confidence', 'score') ?? 0) : 0;
  const reasoning = stringField(obj, 'reasoning', 'explanation', 'rationale') ?? (label ? `Chosen by ${answer.provider}` : `No candidate ${noun} fits the text`);
  const alternatives = Array.isArray(obj?.alternatives)
    ? (obj.alternatives as unknown[])
        .map((a) =>
          typeof a === 'string'
            ? { label: a, confidence: null }
            : a && typeof a === 'object'
              ? { label: stringField(a as Record<string, unknown>, 'label', 'document_type'), confidence: confidenceField(a as Record<string, unknown>, 'confidence') }
              : undefined,
        )
        .filter((a): a is { label: string; confidence: number | null } => a !== undefined && typeof a.label === 'string')
    : [];
  return {
    classification: {
      label,
      section,
      category,
      key_features: stringList(obj, 'key_features') ?? keyTerms(input.text),
      confidence,
      reasoning,
      candidate,
      alternatives,
    },
    answer,
  };
}

const NO_PROMPTS: PromptMatch = {
  matched_prompt_id: null,
  matched_prompt_title: null,
  matched_prompt_section: null,
  match_confidence: 0,
  match_reasoning: 'No prompts are available to match against',
};

/**
 * Phase 2: one extract call (task_hint classify, JSON) that matches the
 * document against the user's prompts by title, section and description.
 * A match below MATCH_THRESHOLD is no match: null with confidence 0.0 and
 * the reason. With the local engine the confidence is its similarity of the
 * text to the best prompt (not a share among the prompts), so the outcome is
 * deterministic and a second prompt for the same documents does not lower it.
 */
export async function matchPrompt(
  llm: LlmClient,
  input: CallContext & { text: string; title?: string; prompts: readonly CandidatePrompt[]; classification?: Pick<TextClassification, 'label' | 'category'> },
): Promise<{ match: PromptMatch; answer?: ExtractResult }> {
  const prompts = input.prompts.filter((p) => p.title.trim());
  if (prompts.length === 0) return { match: NO_PROMPTS };
  const classified = input.classification?.label ? `The document was classified as: ${input.classification.label} (${input.classification.category}).` : undefined;
  const instructions = [
    'Match the document below to the stored prompt written for documents like it.',
    classified,
    'Candidate prompts (JSON: prompt_id, title, section, description):',
    JSON.stringify(prompts.map((p) => ({ prompt_id: p.id, title: p.title, ...(p.section ? { section: p.section } : {}), description: p.description ?? '' }))),
    'Respond with a single JSON object with exactly these keys (prompt_title null when no prompt fits):',
    JSON.stringify({ prompt_id: 0, prompt_title: 'title of the best prompt', match_confidence: 0.0, match_reasoning: 'one or two sentences' }),
  ]
    .filter((l): l is string => l !== undefined)
    .join('\n');
  const answer = await llm.extract(
    { prompt_template: instructions, content: documentContent(input.text, input.title), task_hint: 'classify', output_format: 'json', ...(input.modelType ? { model_type: input.modelType } : {}) },
    { signal: input.signal },
  );
  const obj = answerObject(answer.content);
  const rawId = obj?.prompt_id;
  const byId = typeof rawId === 'number' ? prompts.find((p) => p.id === rawId) : undefined;
  const title = stringField(obj, 'prompt_title', 'title', 'label');
  const byTitle = title ? prompts.find((p) => p.title.trim().toLowerCase() === title.toLowerCase()) : undefined;
  const chosen = byId ?? byTitle;
  const confidence = confidenceField(obj, 'match_confidence', 'confidence') ?? 0;
  const reasoning = stringField(obj, 'match_reasoning', 'reasoning', 'explanation');
  if (!chosen) {
    return { match: { ...NO_PROMPTS, match_reasoning: reasoning ? `No prompt fits: ${reasoning}` : 'No prompt fits the document' }, answer };
  }
  if (confidence < MATCH_THRESHOLD) {
    return {
      match: {
        ...NO_PROMPTS,
        match_reasoning: `The closest prompt, "${chosen.title}", scored ${confidence}, below the ${MATCH_THRESHOLD} threshold${reasoning ? `: ${reasoning}` : ''}`,
      },
      answer,
    };
  }
  return {
    match: {
      matched_prompt_id: chosen.id,
      matched_prompt_title: chosen.title,
      matched_prompt_section: chosen.section,
      match_confidence: confidence,
      match_reasoning: reasoning ?? `Matched "${chosen.title}"`,
    },
    answer,
  };
}

/** The `extraction_result` of a classification (spec 4.5). */
export interface DocumentClassificationResult {
  classification: { type: string; category: string; confidence: number };
  document_type: string;
  category: string;
  key_features: string[];
  confidence: number;
  reasoning: string;
  matched_prompt_id: number | null;
  matched_prompt_title: string | null;
  matched_prompt_section: string | null;
  match_confidence: number;
  match_reasoning: string;
}

export interface DocumentClassification {
  result: DocumentClassificationResult;
  /** `local` when the built-in engine answered, else `llm`. */
  method: 'llm' | 'local';
  usage: LlmUsageTotals;
}

/** Both phases of spec 4.5 on one document's text. */
export async function classifyDocument(llm: LlmClient, input: CallContext & { text: string; title?: string; prompts: readonly CandidatePrompt[] }): Promise<DocumentClassification> {
  const tally = new UsageTally();
  const { classification, answer } = await classifyText(llm, { ...input, candidates: candidatesFor('document_type', input.prompts), type: 'document_type' });
  tally.add(answer);
  const matched = await matchPrompt(llm, { ...input, classification });
  if (matched.answer) tally.add(matched.answer);
  const documentType = classification.label ?? 'unknown';
  return {
    result: {
      classification: { type: documentType, category: classification.category, confidence: classification.confidence },
      document_type: documentType,
      category: classification.category,
      key_features: classification.key_features,
      confidence: classification.confidence,
      reasoning: classification.reasoning,
      ...matched.match,
    },
    method: answer.provider === 'local' ? 'local' : 'llm',
    usage: tally.value,
  };
}
