import { AppError } from '@docflow/service-kit';
import type { TokenUsage } from '../pricing/pricing';

/** A function tool in the OpenAI shape, which the API uses for every provider. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** A call the model asked for, in the OpenAI shape (`arguments` is a JSON string). */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/** A file sent to the provider as it is (an image, or a PDF for Anthropic), from `file_urls`. */
export interface NativeFile {
  mime: string;
  base64: string;
  name: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** On `user` messages: files the provider reads natively (OpenAI image_url parts, Anthropic image/document blocks). */
  files?: NativeFile[];
  /** On `tool` messages: the call being answered. */
  tool_call_id?: string;
  /** On `assistant` messages: calls the model made earlier in the conversation. */
  tool_calls?: ToolCall[];
}

export type LocalTask = 'summarize' | 'classify' | 'extract' | 'chat';

/**
 * What the caller knows about the request that a real model would read from
 * the prompt; only the built-in local engine uses it.
 */
export interface LocalHints {
  task?: LocalTask;
  /** The instructions (legacy `prompt_template`). */
  instructions?: string;
  /** The document text (legacy `content`). */
  document?: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Overrides the provider's configured model. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  /** Ask for a JSON object (OpenAI `response_format: json_object`). */
  jsonMode?: boolean;
  /** The caller expects JSON (explicitly or because the prompt mentions it). */
  expectsJson?: boolean;
  hints?: LocalHints;
}

export interface ChatResult {
  content: string;
  model: string;
  usage: TokenUsage;
  tool_calls?: ToolCall[];
}

export interface EmbedResult {
  embeddings: number[][];
  model: string;
  usage: TokenUsage;
}

export type ProviderName = 'openai' | 'anthropic' | 'local';

export interface LlmProvider {
  readonly name: ProviderName;
  /** The model used when a request names none. */
  readonly model: string;
  chat(req: ChatRequest): Promise<ChatResult>;
  embed?(texts: string[]): Promise<EmbedResult>;
}

/** Retries exhausted (429, 5xx, timeouts, connection errors): the caller may retry later. */
export class LlmUnavailableError extends AppError {
  constructor(message: string, retryAfterSeconds: number, provider: string) {
    super(503, 'ServiceUnavailableError', message, { retry_after: retryAfterSeconds, provider }, 'llm_service_unavailable');
  }
}

/** The provider refused the request (a 4xx other than 429) or answered something unusable. */
export class LlmProviderError extends AppError {
  constructor(message: string, provider: string, providerStatus?: number) {
    super(502, 'BadGatewayError', message, { provider, ...(providerStatus !== undefined ? { provider_status: providerStatus } : {}) }, 'llm_provider_error');
  }
}
