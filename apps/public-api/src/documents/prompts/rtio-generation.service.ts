import { InternalServiceError, type ExtractResult, type LlmClient } from '@docflow/llm-client';
import { fillExampleOutput, jsonObjectFrom, renderRtioMessages, rtioFromClassification, type RtioPromptDraft } from '@docflow/rtio';
import { AppError, ForbiddenError, Logger, NotFoundError, RequestTimeoutError } from '@docflow/service-kit';
import type { PublicApiDatabase } from '../../platform';
import { getDocumentText } from '../document-text';
import type { GenerateRtioBody } from './generate-rtio.dto';
import type { PromptCaller } from './prompts.service';
import type { PromptsRepository } from './prompts.repository';

/** How much of the document the LLM sees: enough to find example values, small enough to stay fast. */
export const RTIO_DOCUMENT_CHARS = 20000;

export interface GenerateRtioResponse {
  success: true;
  rtio_prompt: RtioPromptDraft;
  /** The classification's confidence, scaled by how much of the example output the document filled (0.7 to 1 times). */
  confidence: number;
  generated_from_classification: { document_type: string; category: string };
  message: string;
  /** Who filled the example output; null when the document had no text to send. */
  llm: { provider: string; model: string; cost: number; fields_found: number; fields_total: number } | null;
}

export interface RtioGenerationDeps {
  prompts: PromptsRepository;
  database: PublicApiDatabase;
  llm: Pick<LlmClient, 'extract'>;
  /** RTIO_TIMEOUT_SECONDS in ms: the whole generation, document reads included. */
  timeoutMs: number;
  logger: Logger;
}

/** Largest record id (PostgreSQL integer): a larger document_id names no document. */
const MAX_ID = 2147483647;

/** Classifier confidence when the request carries none. */
const DEFAULT_CONFIDENCE = 0.5;

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/**
 * POST /prompts/generate-rtio (spec 4.4): an extraction prompt drafted from
 * a classification (libs/rtio), then tried on the document through the LLM
 * service, whose answer fills the example output with the document's own
 * values. Never saved: the caller saves it with POST /prompts.
 */
export class RtioGenerationService {
  constructor(private readonly deps: RtioGenerationDeps) {}

  /** `body` as the route read it (parseBody with GenerateRtioBody). */
  async generate(user: PromptCaller, body: GenerateRtioBody): Promise<GenerateRtioResponse> {
    const started = Date.now();
    const { document_id: documentId, classification_result: c } = body;

    const owner = documentId <= MAX_ID ? await this.deps.prompts.documentOwner(documentId) : undefined;
    if (owner === undefined) throw new NotFoundError('Document not found');
    if (owner !== user.id) throw new ForbiddenError('You can only generate prompts from your own documents');

    const draft = rtioFromClassification({ document_type: c.document_type, category: c.category ?? null, key_features: c.key_features ?? [], confidence: c.confidence ?? null });
    const classifierConfidence = c.confidence ?? DEFAULT_CONFIDENCE;
    const from = { document_type: c.document_type, category: c.category?.trim() || draft.section };
    const doc = await getDocumentText(this.deps.database, documentId, user.id);
    const text = doc?.text?.trim() ?? '';
    if (!text) {
      const why = doc?.status === 'pending' || doc?.status === 'processing' ? 'its text is still being extracted' : 'it has no extracted text';
      return {
        success: true,
        rtio_prompt: draft,
        confidence: round2(classifierConfidence * 0.7),
        generated_from_classification: from,
        message: `Generated an extraction prompt for ${from.document_type} documents from the classification alone: ${why}. Review it and save it with POST /prompts.`,
        llm: null,
      };
    }

    const remaining = Math.max(1, this.deps.timeoutMs - (Date.now() - started));
    const messages = renderRtioMessages(draft, { documentText: text, maxDocumentChars: RTIO_DOCUMENT_CHARS });
    let answer: ExtractResult;
    try {
      answer = await this.deps.llm.extract({ messages, output_format: 'json', task_hint: 'extract' }, { timeoutMs: remaining });
    } catch (err) {
      if (err instanceof InternalServiceError && err.code === 'timeout') {
        throw new RequestTimeoutError('RTIO generation timed out', { timeout_seconds: Math.round(this.deps.timeoutMs / 1000), error: err.message });
      }
      if (err instanceof InternalServiceError) {
        this.deps.logger.warn('RTIO generation failed at the LLM service', { code: err.code, status: err.status });
        throw new AppError(500, 'InternalServerError', 'RTIO generation failed', { error: err.message, code: err.code }, 'rtio_generation_failed');
      }
      this.deps.logger.error('RTIO generation failed', { error: err instanceof Error ? err.stack : String(err) });
      throw new AppError(500, 'InternalServerError', 'RTIO generation failed', { error: 'unexpected failure while calling the LLM service' }, 'rtio_generation_failed');
    }

    const filled = fillExampleOutput(draft.exampleOutput, jsonObjectFrom(answer.content));
    const ratio = filled.total ? filled.filled / filled.total : 0;
    return {
      success: true,
      rtio_prompt: { ...draft, exampleOutput: filled.output },
      confidence: round2(classifierConfidence * (0.7 + 0.3 * ratio)),
      generated_from_classification: from,
      message: `Generated an extraction prompt for ${from.document_type} documents; trying it on the document (${answer.provider}) found ${filled.filled} of ${filled.total} fields. Review it and save it with POST /prompts.`,
      llm: { provider: answer.provider, model: answer.model, cost: answer.cost, fields_found: filled.filled, fields_total: filled.total },
    };
  }
}
