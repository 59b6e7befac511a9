import { ChatRequest, ChatResult, EmbedResult, LlmProvider, LlmProviderError, ToolCall } from './provider';
import { ProviderHttp, ProviderHttpOptions } from './provider-http';

export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

export interface OpenAiProviderOptions extends Omit<ProviderHttpOptions, 'provider' | 'headers' | 'secrets'> {
  apiKey?: string;
  model?: string;
  embeddingModel?: string;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}

function toolCallsOf(value: unknown): ToolCall[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const calls: ToolCall[] = [];
  for (const [i, raw] of value.entries()) {
    const call = asRecord(raw);
    const fn = asRecord(call?.function);
    if (!call || !fn || typeof fn.name !== 'string') continue;
    const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    calls.push({ id: typeof call.id === 'string' ? call.id : `call_${i}`, type: 'function', function: { name: fn.name, arguments: args } });
  }
  return calls.length ? calls : undefined;
}

/** The OpenAI-compatible chat-completions and embeddings API (OpenAI, Ollama, vLLM, LM Studio, ...). */
export class OpenAiProvider implements LlmProvider {
  readonly name = 'openai' as const;
  readonly model: string;
  private readonly embeddingModel: string;
  private readonly http: ProviderHttp;

  constructor(options: OpenAiProviderOptions) {
    this.model = options.model ?? DEFAULT_OPENAI_MODEL;
    this.embeddingModel = options.embeddingModel ?? DEFAULT_OPENAI_EMBEDDING_MODEL;
    this.http = new ProviderHttp({
      ...options,
      provider: 'openai',
      headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
      secrets: options.apiKey ? [options.apiKey] : [],
    });
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const body: Record<string, unknown> = {
      model: req.model ?? this.model,
      messages: req.messages.map((m) => ({
        role: m.role,
        // Files as OpenAI-compatible content parts: the text, then each image as a data URL.
        content: m.files?.length ? [{ type: 'text', text: m.content }, ...m.files.map((f) => ({ type: 'image_url', image_url: { url: `data:${f.mime};base64,${f.base64}` } }))] : m.content,
        ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
        ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
      })),
    };
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
    if (req.tools?.length) {
      body.tools = req.tools;
      if (req.toolChoice !== undefined) body.tool_choice = req.toolChoice;
    }
    if (req.jsonMode) {
      body.response_format = { type: 'json_object' };
      // The API refuses json_object mode unless a message mentions JSON.
      if (!req.messages.some((m) => /json/i.test(m.content))) {
        (body.messages as unknown[]).unshift({ role: 'system', content: 'Respond with a single valid JSON object.' });
      }
    }

    const data = asRecord(await this.http.post('/chat/completions', body));
    const choices = data?.choices;
    const first = Array.isArray(choices) ? asRecord(choices[0]) : undefined;
    const message = asRecord(first?.message);
    if (!data || !message) throw new LlmProviderError('openai answered without a message', 'openai');
    const usage = asRecord(data.usage);
    const toolCalls = toolCallsOf(message.tool_calls);
    return {
      content: typeof message.content === 'string' ? message.content : '',
      model: typeof data.model === 'string' ? data.model : String(body.model),
      usage: { prompt_tokens: tokenCount(usage?.prompt_tokens), completion_tokens: tokenCount(usage?.completion_tokens) },
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    };
  }

  async embed(texts: string[]): Promise<EmbedResult> {
    const data = asRecord(await this.http.post('/embeddings', { model: this.embeddingModel, input: texts }));
    const items = data?.data;
    if (!data || !Array.isArray(items)) throw new LlmProviderError('openai answered embeddings without data', 'openai');
    const ordered = items.map((raw, i) => asRecord(raw) ?? { index: i }).sort((a, b) => tokenCount(a.index) - tokenCount(b.index));
    const embeddings = ordered.map((item) => item.embedding);
    if (embeddings.length !== texts.length || !embeddings.every((e): e is number[] => Array.isArray(e) && e.every((n) => typeof n === 'number'))) {
      throw new LlmProviderError('openai answered embeddings of an unexpected shape', 'openai');
    }
    const usage = asRecord(data.usage);
    return {
      embeddings,
      model: typeof data.model === 'string' ? data.model : this.embeddingModel,
      usage: { prompt_tokens: tokenCount(usage?.prompt_tokens), completion_tokens: 0 },
    };
  }
}
