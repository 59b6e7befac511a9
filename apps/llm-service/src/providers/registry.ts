import { MODEL_TYPES, ModelType } from '@docflow/contracts';
import type { ProviderSettings } from '../config';
import { LocalEngine } from '../local-engine/local.provider';
import { AnthropicProvider } from './anthropic.provider';
import { OpenAiProvider } from './openai.provider';
import { EmbedResult, LlmProvider } from './provider';
import { RetryClock, RetryPolicy } from './provider-http';

export type EmbeddingProvider = LlmProvider & { embed(texts: string[]): Promise<EmbedResult> };

/** Which provider serves each `model_type`; a slot without a provider is served by the local engine. */
export class ProviderRegistry {
  readonly local: EmbeddingProvider;

  constructor(
    private readonly slots: Partial<Record<ModelType, LlmProvider>> = {},
    local: EmbeddingProvider = new LocalEngine(),
  ) {
    this.local = local;
  }

  get(modelType: ModelType): LlmProvider {
    return this.slots[modelType] ?? this.local;
  }

  /** The slot's provider when it has embeddings (the `openai` kind), else the local engine. */
  embedder(modelType: ModelType): EmbeddingProvider {
    const provider = this.get(modelType);
    return provider.embed ? (provider as EmbeddingProvider) : this.local;
  }

  /** `model_type → provider/model`, for the start-up log line (no URL, no key). */
  describe(): Record<ModelType, string> {
    return Object.fromEntries(MODEL_TYPES.map((t) => [t, `${this.get(t).name}/${this.get(t).model}`])) as Record<ModelType, string>;
  }
}

export interface ProviderBuildOptions {
  timeoutMs: number;
  retry: RetryPolicy;
  clock: RetryClock;
}

export function createProvider(settings: ProviderSettings, options: ProviderBuildOptions): LlmProvider | undefined {
  if (!settings.url) return undefined;
  const common = { baseUrl: settings.url, apiKey: settings.apiKey, model: settings.model, ...options };
  switch (settings.kind) {
    case 'openai':
      return new OpenAiProvider({ ...common, embeddingModel: settings.embeddingModel });
    case 'anthropic':
      return new AnthropicProvider(common);
    default: {
      const unreachable: never = settings.kind;
      throw new Error(`unknown provider kind ${String(unreachable)}`);
    }
  }
}

export function buildProviderRegistry(settings: ProviderSettings[], options: ProviderBuildOptions): ProviderRegistry {
  const slots: Partial<Record<ModelType, LlmProvider>> = {};
  for (const s of settings) {
    const provider = createProvider(s, options);
    if (provider) slots[s.modelType] = provider;
  }
  return new ProviderRegistry(slots);
}
