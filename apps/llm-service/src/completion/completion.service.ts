import { DataShieldDiagnostics, ModelType } from '@docflow/contracts';
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
  /** Shielding is required by policy: with shielding switched off the call is refused, never sent in clear. */
  required?: boolean;
  tenant?: string;
  actorUserId?: number;
  /** The entry point named in the audit row (default: the endpoint). */
  entryPoint?: string;
}

/** Shielding is off (DATA_SHIELD_DISABLED) and a policy requires it: the call is refused before any provider call. */
export class DataShieldPolicyViolationError extends AppError {
  constructor() {
    super(
      403,
      'ForbiddenError',
      'DATA_SHIELD_POLICY_VIOLATION: the policy requires Data Shield, which is disabled in this LLM service; nothing was sent to the provider',
      {},
      'data_shield_policy_violation',
    );
  }
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
  /** What the provider was sent, when the call was shielded. */
  shield?: DataShieldDiagnostics;
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
  /** DATA_SHIELD_DISABLED: shielding requests are served in clear, except those a policy requires (refused). */
  shieldingDisabled?: boolean;
}

function outcomeOf(err: unknown): LlmOutcome {
  if (err instanceof DataShieldUnavailableError || err instanceof DataShieldPolicyViolationError) return 'data_shield_unavailable';
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

  /** Which provider answers a model type (what it reads natively depends on it). */
  providerName(modelType: ModelType): ProviderName {
    return this.deps.providers.get(modelType).name;
  }

  async complete(input: CompletionInput): Promise<Completion> {
    const provider = this.deps.providers.get(input.modelType);
    const model = input.request.model ?? provider.model;
    const started = this.deps.clock.now();
    try {
      let shield = input.shield;
      if (shield && this.deps.shieldingDisabled) {
        if (shield.required) throw new DataShieldPolicyViolationError();
        shield = undefined;
      }
      const shielded = shield ? await this.shielded(provider, input.request, shield, { endpoint: shield.entryPoint ?? input.endpoint, model }) : undefined;
      const result = shielded ? shielded.result : await provider.chat(input.request);
      const cost = this.cost(provider.name, result.model, result.usage);
      this.deps.metrics.record({ provider: provider.name, model: result.model, endpoint: input.endpoint, outcome: 'success', seconds: this.elapsed(started), usage: result.usage, cost });
      return { result, provider: provider.name, cost, ...(shielded ? { shield: shielded.diagnostics } : {}) };
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
   * Tokenises every text of the request in one scope (message contents,
   * earlier tool-call arguments, the local engine's hints), calls the
   * provider with the tokenised texts only, and restores the answer and its
   * tool-call arguments. If Data Shield fails the call fails with 503 and no
   * unshielded text leaves. The scope (the reverse map) is an object of this
   * call only: restoring needs no other service, and it is dropped with the call.
   */
  private async shielded(
    provider: LlmProvider,
    request: ChatRequest,
    shield: ShieldOptions,
    call: { endpoint: string; model: string },
  ): Promise<{ result: ChatResult; diagnostics: DataShieldDiagnostics }> {
    const texts: string[] = [];
    for (const m of request.messages) {
      texts.push(m.content);
      for (const c of m.tool_calls ?? []) texts.push(c.function.arguments);
    }
    // Hints reach only the local engine; for a remote provider they are dropped rather than counted twice.
    const local = provider.name === 'local';
    const hintTexts = local ? [request.hints?.instructions, request.hints?.document].filter((t): t is string => t !== undefined) : [];
    texts.push(...hintTexts);
    const tokenised = await this.deps.dataShield.tokenise(texts, {
      entityTypes: shield.entityTypes,
      tenant: shield.tenant,
      actorUserId: shield.actorUserId,
      context: { endpoint: call.endpoint, model: call.model, provider: provider.name },
    });
    let i = 0;
    const next = () => tokenised.texts[i++] ?? '';
    const messages = request.messages.map((m) => {
      const content = next();
      const toolCalls = m.tool_calls?.map((c) => ({ ...c, function: { ...c.function, arguments: next() } }));
      return { ...m, content, ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    });
    const hints = !request.hints
      ? undefined
      : local
        ? {
            ...request.hints,
            ...(request.hints.instructions !== undefined ? { instructions: next() } : {}),
            ...(request.hints.document !== undefined ? { document: next() } : {}),
          }
        : { ...(request.hints.task ? { task: request.hints.task } : {}) };
    const result = await provider.chat({ ...request, messages, ...(hints ? { hints } : {}) });
    const calls = result.tool_calls ?? [];
    const restored = [result.content, ...calls.map((c) => c.function.arguments)].map((t) => tokenised.scope.restore(t));
    const toolCalls: ToolCall[] = calls.map((c, k) => ({ ...c, function: { ...c.function, arguments: restored[k + 1] ?? c.function.arguments } }));
    return {
      result: { ...result, content: restored[0] ?? '', ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
      diagnostics: { shielded: true, messages: messages.map((m) => ({ role: m.role, content: m.content })), entity_counts: tokenised.entityCounts, layers: tokenised.layers },
    };
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
