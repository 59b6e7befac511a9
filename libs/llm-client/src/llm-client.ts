import type { DataShieldDiagnostics, DataShieldOptions, ExtractRequest, ExtractResponse, ModelType } from '@docflow/contracts';
import { JsonServiceClient } from '@docflow/internal-http';
import { isPlainObject, type Logger } from '@docflow/service-kit';
import { LlmServiceError } from './errors';

/** Which task the LLM service's local engine should do; remote providers ignore it. */
export type LlmTaskHint = 'summarize' | 'classify' | 'extract' | 'chat';
export type OutputFormat = 'json' | 'text';

/** Body of POST /api/v1/extract: the contract's ExtractRequest plus the generation fields the service accepts. */
export type ExtractCall = Partial<ExtractRequest> & {
  task_hint?: LlmTaskHint;
  output_format?: OutputFormat;
  temperature?: number;
  max_tokens?: number;
};

export interface LlmUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The extract answer, with `usage` always present (zeros when the service sent none). */
export type ExtractResult = ExtractResponse & { usage: LlmUsage };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCallMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_call_id?: string;
  tool_calls?: ChatToolCall[];
}

/** Body of POST /api/v1/chat. */
export interface ChatCall {
  messages: ChatCallMessage[];
  model_type?: ModelType;
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown> } }[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  temperature?: number;
  max_tokens?: number;
  response_format?: 'json' | 'text' | { type: 'json_object' | 'json_schema' | 'text' };
  task_hint?: LlmTaskHint;
  data_shield?: DataShieldOptions;
  /** Files the LLM service fetches and reads with the conversation (its last user message). */
  file_urls?: { url: string; mime_type?: string; name?: string }[];
}

export interface ChatResult {
  message: { role: 'assistant'; content: string; tool_calls?: ChatToolCall[] };
  model: string;
  provider: string;
  usage: LlmUsage;
  cost: number;
  /** Present when the call was shielded. */
  data_shield?: DataShieldDiagnostics;
}

export interface EmbeddingsResult {
  embeddings: number[][];
  model: string;
  provider: string;
  dimensions: number;
  usage: LlmUsage;
  cost: number;
}

export interface CallOptions {
  /** Cancels the call (the run's deadline, a shutdown). */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
}

export interface LlmClient {
  extract(req: ExtractCall, options?: CallOptions): Promise<ExtractResult>;
  chat(req: ChatCall, options?: CallOptions): Promise<ChatResult>;
  embeddings(input: string | string[], options?: CallOptions & { modelType?: ModelType }): Promise<EmbeddingsResult>;
  /** Frees pooled sockets. */
  close(): void;
}

export interface LlmClientOptions {
  /** `{llm_url}`, e.g. http://127.0.0.1:8020 (without /api/v1). */
  baseUrl: string;
  serviceKey: string;
  /** Per call; it should outlast the LLM service's own provider retries. Default 240000. */
  timeoutMs?: number;
  logger?: Logger;
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function usageOf(value: unknown): LlmUsage {
  const u = isPlainObject(value) ? value : {};
  const prompt = num(u.prompt_tokens);
  const completion = num(u.completion_tokens);
  const total = typeof u.total_tokens === 'number' && Number.isFinite(u.total_tokens) ? u.total_tokens : prompt + completion;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
}

function badResponse(endpoint: string, problem: string): LlmServiceError {
  return new LlmServiceError('llm-service', 'bad_response', `llm-service sent an unusable ${endpoint} answer: ${problem}`, { retryable: false });
}

function readExtract(data: unknown): ExtractResult {
  if (!isPlainObject(data)) throw badResponse('extract', 'not a JSON object');
  const content = data.content;
  if (typeof content !== 'string' && !isPlainObject(content) && !Array.isArray(content)) throw badResponse('extract', 'content is missing');
  if (typeof data.provider !== 'string' || typeof data.model !== 'string') throw badResponse('extract', 'provider or model is missing');
  return {
    content: content as ExtractResult['content'],
    model: data.model,
    provider: data.provider,
    cost: num(data.cost),
    usage: usageOf(data.usage),
    ...(isPlainObject(data.data_shield) ? { data_shield: data.data_shield as unknown as DataShieldDiagnostics } : {}),
  };
}

function readChat(data: unknown): ChatResult {
  if (!isPlainObject(data) || !isPlainObject(data.message)) throw badResponse('chat', 'message is missing');
  if (typeof data.provider !== 'string' || typeof data.model !== 'string') throw badResponse('chat', 'provider or model is missing');
  const m = data.message;
  const toolCalls = Array.isArray(m.tool_calls) ? (m.tool_calls as ChatToolCall[]) : undefined;
  return {
    message: { role: 'assistant', content: typeof m.content === 'string' ? m.content : '', ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) },
    model: data.model,
    provider: data.provider,
    usage: usageOf(data.usage),
    cost: num(data.cost),
    ...(isPlainObject(data.data_shield) ? { data_shield: data.data_shield as unknown as DataShieldDiagnostics } : {}),
  };
}

function readEmbeddings(data: unknown, expected: number): EmbeddingsResult {
  if (!isPlainObject(data) || !Array.isArray(data.embeddings)) throw badResponse('embeddings', 'embeddings is missing');
  const embeddings = data.embeddings as unknown[];
  if (embeddings.length !== expected || !embeddings.every((e) => Array.isArray(e) && e.every((x) => typeof x === 'number'))) {
    throw badResponse('embeddings', `expected ${expected} vectors of numbers`);
  }
  if (typeof data.provider !== 'string' || typeof data.model !== 'string') throw badResponse('embeddings', 'provider or model is missing');
  const vectors = embeddings as number[][];
  return {
    embeddings: vectors,
    model: data.model,
    provider: data.provider,
    dimensions: typeof data.dimensions === 'number' ? data.dimensions : (vectors[0]?.length ?? 0),
    usage: usageOf(data.usage),
    cost: num(data.cost),
  };
}

/**
 * Client of the LLM service (`/api/v1/extract`, `/chat`, `/embeddings`).
 * Failures are LlmServiceError with the service's code: 503
 * `llm_service_unavailable` is retryable with `retryAfterSeconds`; 400 and
 * 422 are not. The client does not retry: the service already retried its
 * provider before answering 503.
 */
export function createLlmClient(options: LlmClientOptions): LlmClient {
  const http = new JsonServiceClient(
    { service: 'llm-service', baseUrl: options.baseUrl, auth: { kind: 'service-key', key: options.serviceKey }, timeoutMs: options.timeoutMs ?? 240000, logger: options.logger },
    (code, message, o) => new LlmServiceError('llm-service', code, message, o),
  );
  const call = (o?: CallOptions) => ({ signal: o?.signal, timeoutMs: o?.timeoutMs });
  return {
    async extract(req, o) {
      return readExtract(await http.post('/api/v1/extract', req, call(o)));
    },
    async chat(req, o) {
      return readChat(await http.post('/api/v1/chat', req, call(o)));
    },
    async embeddings(input, o) {
      const texts = typeof input === 'string' ? [input] : input;
      const body = { input: texts, ...(o?.modelType ? { model_type: o.modelType } : {}) };
      return readEmbeddings(await http.post('/api/v1/embeddings', body, call(o)), texts.length);
    },
    close() {
      http.close();
    },
  };
}
