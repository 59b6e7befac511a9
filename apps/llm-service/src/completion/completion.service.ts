import { ModelType } from '@docflow/contracts';
import { AppError, Logger } from '@docflow/service-kit';
import { DataShield, DataShieldUnavailableError } from '../data-shield/data-shield.client';
import { Pricing, TokenUsage } from '../pricing/pricing';
import { ChatRequest, ChatResult, LlmProvider, ProviderName, ToolCall } from '../providers/provider';
import { ProviderRegistry } from '../providers/registry';
import { LlmEndpoint, LlmMetrics, LlmOutcome } from './llm-metrics';

export interface Clock {
  now(): number;
}

export interface ShieldOptions {
  entityTypes?: string[];
}

export interface CompletionInput {
  endpoint: Exclude<LlmEndpoint, 'embeddings'>;
  modelType: ModelType;
  request: ChatRequest;
  /** Set when the text must be tokenised by Data Shield before it leaves the service. */
  shield?: ShieldOptions;
}

export interface Completion {
  result: ChatResult;
  provider: ProviderName;
  cost: number;
}

export interface Embeddings {
  embeddings: number[][];
  model: string;
  provider: ProviderName;
  usage: TokenUsage;
  cost: number;
}

export interface CompletionDeps {
  providers: ProviderRegistry;
  dataShield: DataShield;
  pricing: Pricing;
  metrics: LlmMetrics;
  clock: Clock;
  logger: Logger;
}

function outcomeOf(err: unknown): LlmOutcome {
  if (err instanceof DataShieldUnavailableError) return 'data_shield_unavailable';
  if (err instanceof AppError && err.code === 'llm_provider_error') return 'provider_error';
  if (err instanceof AppError && err.code === 'llm_service_unavailable') return 'unavailable';
  return 'error';
}

/**
 * One call to the provider of a model type: Data Shield around it when asked
 * (fail closed), cost from the price table, and the metrics.
 */
export class CompletionService {
  private readonly unpriced = new Set<string>();

  constructor(private readonly deps: CompletionDeps) {}

  async complete(input: CompletionInput): Promise<Completion> {
    const provider = this.deps.providers.get(input.modelType);
    const model = input.request.model ?? provider.model;
    const started = this.deps.clock.now();
    try {
      const result = input.shield ? await this.shielded(provider, input.request, input.shield) : await provider.chat(input.request);
      const cost = this.cost(provider.name, result.model, result.usage);
      this.deps.metrics.record({ provider: provider.name, model: result.model, endpoint: input.endpoint, outcome: 'success', seconds: this.elapsed(started), usage: result.usage, cost });
      return { result, provider: provider.name, cost };
    } catch (err) {
      this.deps.metrics.record({ provider: provider.name, model, endpoint: input.endpoint, outcome: outcomeOf(err), seconds: this.elapsed(started) });
      throw err;
    }
  }

  async embed(modelType: ModelType, texts: string[]): Promise<Embeddings> {
    const provider = this.deps.providers.embedder(modelType);
    const started = this.deps.clock.now();
    try {
      const res = await provider.embed(texts);
      const cost = this.cost(provider.name, res.model, res.usage);
      this.deps.metrics.record({ provider: provider.name, model: res.model, endpoint: 'embeddings', outcome: 'success', seconds: this.elapsed(started), usage: res.usage, cost });
      return { ...res, provider: provider.name, cost };
    } catch (err) {
      this.deps.metrics.record({ provider: provider.name, model: provider.model, endpoint: 'embeddings', outcome: outcomeOf(err), seconds: this.elapsed(started) });
      throw err;
    }
  }

  /**
   * Tokenises every text of the request in one scope, calls the provider with
   * the tokenised texts only, and restores the answer. If Data Shield fails at
   * either end the call fails with 503: no unshielded text leaves, and no
   * tokenised answer is passed off as the real one.
   */
  private async shielded(provider: LlmProvider, request: ChatRequest, shield: ShieldOptions): Promise<ChatResult> {
    const texts = request.messages.map((m) => m.content);
    const hintTexts = [request.hints?.instructions, request.hints?.document];
    const all = [...texts, ...hintTexts.filter((t): t is string => t !== undefined)];
    const tokenised = await this.deps.dataShield.tokenise(all, shield.entityTypes);
    let i = 0;
    const next = () => tokenised.texts[i++] ?? '';
    const messages = request.messages.map((m) => ({ ...m, content: next() }));
    const hints = request.hints
      ? {
          ...request.hints,
          ...(request.hints.instructions !== undefined ? { instructions: next() } : {}),
          ...(request.hints.document !== undefined ? { document: next() } : {}),
        }
      : undefined;
    const result = await provider.chat({ ...request, messages, ...(hints ? { hints } : {}) });
    const calls = result.tool_calls ?? [];
    const restored = await this.deps.dataShield.restore(tokenised.scopeId, [result.content, ...calls.map((c) => c.function.arguments)]);
    const toolCalls: ToolCall[] = calls.map((c, k) => ({ ...c, function: { ...c.function, arguments: restored[k + 1] ?? c.function.arguments } }));
    return { ...result, content: restored[0] ?? '', ...(toolCalls.length ? { tool_calls: toolCalls } : {}) };
  }

  private cost(provider: ProviderName, model: string, usage: TokenUsage): number {
    if (provider !== 'local' && !this.deps.pricing.isKnown(model) && !this.unpriced.has(model)) {
      this.unpriced.add(model);
      this.deps.logger.warn('no price for model; its cost is reported as 0 (set LLM_PRICES)', { provider, model });
    }
    return this.deps.pricing.cost(provider, model, usage);
  }

  private elapsed(started: number): number {
    return Math.max(0, (this.deps.clock.now() - started) / 1000);
  }
}
