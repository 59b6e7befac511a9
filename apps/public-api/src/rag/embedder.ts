import type { ModelType } from '@docflow/contracts';
import type { LlmClient } from '@docflow/llm-client';
import type { Logger } from '@docflow/service-kit';
import { errorMessage } from '@docflow/service-kit';

export interface Embeddings {
  /** L2-normalised, one per input text. */
  vectors: number[][];
  /** `provider:model`; only vectors of the same model are ever compared. */
  model: string;
}

export interface EmbedderOptions {
  enabled: boolean;
  /** Texts per call to the LLM service. */
  batchSize: number;
  modelType: ModelType;
  logger: Logger;
}

/** The vector scaled to length 1 (so that cosine similarity is a dot product), with 7 significant digits (real[] keeps about that many). */
export function normalise(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  if (!Number.isFinite(norm) || norm === 0) return vector.map(() => 0);
  return vector.map((v) => Number((v / norm).toPrecision(7)));
}

/**
 * Embeddings through the LLM service (POST /api/v1/embeddings), in batches.
 * Best effort: when embeddings are switched off or the service fails, the
 * answer is null and retrieval falls back to full-text ranking alone.
 */
export class Embedder {
  constructor(
    private readonly llm: Pick<LlmClient, 'embeddings'>,
    private readonly options: EmbedderOptions,
  ) {}

  get enabled(): boolean {
    return this.options.enabled;
  }

  async embed(texts: string[], call: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Embeddings | null> {
    if (!this.options.enabled || texts.length === 0) return null;
    const vectors: number[][] = [];
    let model: string | undefined;
    try {
      for (let i = 0; i < texts.length; i += this.options.batchSize) {
        const batch = texts.slice(i, i + this.options.batchSize);
        const res = await this.llm.embeddings(batch, { modelType: this.options.modelType, signal: call.signal, timeoutMs: call.timeoutMs });
        const name = `${res.provider}:${res.model}`;
        if (model !== undefined && model !== name) throw new Error(`the embedding model changed from ${model} to ${name} between batches`);
        model = name;
        const dims = res.embeddings[0]?.length ?? 0;
        if (dims === 0 || res.embeddings.some((v) => v.length !== dims)) throw new Error('the LLM service sent embeddings of unequal or zero size');
        vectors.push(...res.embeddings.map(normalise));
      }
    } catch (err) {
      this.options.logger.warn('embeddings unavailable; full-text ranking only', { texts: texts.length, error: errorMessage(err) });
      return null;
    }
    return model === undefined ? null : { vectors, model };
  }
}
