import { Router } from 'express';
import { MODEL_TYPES, type ModelType } from '@docflow/contracts';
import { IsIn, IsOptional, Validate, ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';
import { parseBody } from '@docflow/service-kit';
import { CompletionService } from '../completion/completion.service';

export const MAX_EMBEDDING_INPUTS = 2048;

/** `input`: a string or a non-empty array of at most MAX_EMBEDDING_INPUTS strings. */
@ValidatorConstraint({ name: 'embeddingInput' })
class EmbeddingInput implements ValidatorConstraintInterface {
  validate(input: unknown): boolean {
    return typeof input === 'string' || (Array.isArray(input) && input.length > 0 && input.length <= MAX_EMBEDDING_INPUTS && input.every((t) => typeof t === 'string'));
  }

  defaultMessage(args: ValidationArguments): string {
    const input: unknown = args.value;
    if (!Array.isArray(input) || !input.every((t) => typeof t === 'string')) return 'input must be a string or an array of strings';
    return input.length === 0 ? 'input must not be empty' : `input must have at most ${MAX_EMBEDDING_INPUTS} items`;
  }
}

/** Body of POST /api/v1/embeddings: `{input: string | string[], model_type?}`. */
export class EmbeddingsBody {
  @Validate(EmbeddingInput)
  input!: string | string[];

  @IsOptional()
  @IsIn(MODEL_TYPES as unknown as string[], { message: `model_type must be one of ${MODEL_TYPES.join(', ')}` })
  model_type?: ModelType;
}

/**
 * POST /api/v1/embeddings. `openai` providers embed with their embedding
 * model; `anthropic` ones have no embeddings, so those slots (and slots with
 * no provider) use the local hashed bag of words, reported as provider local.
 */
export function embeddingsRoutes(completions: CompletionService): Router {
  const router = Router();
  router.post('/embeddings', async (req, res) => {
    const body = parseBody(EmbeddingsBody, req.body, { message: 'Invalid embeddings request' });
    const texts = typeof body.input === 'string' ? [body.input] : body.input;
    const out = await completions.embed(body.model_type ?? 'provider_a', texts);
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
