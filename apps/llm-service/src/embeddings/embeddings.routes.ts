import { Router } from 'express';
import { MODEL_TYPES, ModelType } from '@docflow/contracts';
import { BadRequestError } from '@docflow/service-kit';
import { CompletionService } from '../completion/completion.service';

export const MAX_EMBEDDING_INPUTS = 2048;

/** Validates `{input: string | string[], model_type?}`. */
export function parseEmbeddingsBody(body: unknown): { texts: string[]; modelType: ModelType } {
  const errors: string[] = [];
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (!b) throw BadRequestError.withErrors('Invalid embeddings request', ['body must be a JSON object']);
  const input = b.input;
  let texts: string[] = [];
  if (typeof input === 'string') texts = [input];
  else if (Array.isArray(input) && input.every((t) => typeof t === 'string')) texts = input as string[];
  else errors.push('input must be a string or an array of strings');
  if (Array.isArray(input) && input.length === 0) errors.push('input must not be empty');
  if (texts.length > MAX_EMBEDDING_INPUTS) errors.push(`input must have at most ${MAX_EMBEDDING_INPUTS} items`);
  const modelType = b.model_type ?? 'provider_a';
  if (typeof modelType !== 'string' || !(MODEL_TYPES as readonly string[]).includes(modelType)) errors.push(`model_type must be one of ${MODEL_TYPES.join(', ')}`);
  if (errors.length) throw BadRequestError.withErrors('Invalid embeddings request', errors);
  return { texts, modelType: modelType as ModelType };
}

/**
 * POST /api/v1/embeddings. `openai` providers embed with their embedding
 * model; `anthropic` ones have no embeddings, so those slots (and slots with
 * no provider) use the local hashed bag of words, reported as provider local.
 */
export function embeddingsRoutes(completions: CompletionService): Router {
  const router = Router();
  router.post('/embeddings', async (req, res) => {
    const { texts, modelType } = parseEmbeddingsBody(req.body);
    const out = await completions.embed(modelType, texts);
    res.json({
      embeddings: out.embeddings,
      model: out.model,
      provider: out.provider,
      dimensions: out.embeddings[0]?.length ?? 0,
      usage: { prompt_tokens: out.usage.prompt_tokens, total_tokens: out.usage.prompt_tokens },
      cost: out.cost,
    });
  });
  return router;
}
