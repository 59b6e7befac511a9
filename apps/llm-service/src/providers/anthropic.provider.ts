import { ChatMessage, ChatRequest, ChatResult, LlmProvider, LlmProviderError, ToolCall, ToolChoice, ToolDefinition } from './provider';
import { ProviderHttp, ProviderHttpOptions } from './provider-http';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-3-5-haiku-latest';
export const ANTHROPIC_VERSION = '2023-06-01';
/** The Messages API requires max_tokens. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

export interface AnthropicProviderOptions extends Omit<ProviderHttpOptions, 'provider' | 'headers' | 'secrets'> {
  apiKey?: string;
  model?: string;
}

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image' | 'document'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}

function parseArguments(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return { arguments: args };
  }
}

/** Maps the OpenAI-shaped conversation onto the Messages API: system apart, tool calls as blocks, alternating roles. */
export function toAnthropicMessages(messages: ChatMessage[]): { system?: string; messages: AnthropicMessage[] } {
  const system = messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .filter(Boolean)
    .join('\n\n');
  const out: AnthropicMessage[] = [];
  for (const m of messages) {
    let turn: AnthropicMessage;
    switch (m.role) {
      case 'system':
        continue;
      case 'user':
        // Files as Anthropic blocks: images as `image`, PDFs as `document`, both base64, before the text that asks about them.
        turn = {
          role: 'user',
          content: [
            ...(m.files ?? []).map((f): ContentBlock => ({ type: f.mime === 'application/pdf' ? 'document' : 'image', source: { type: 'base64', media_type: f.mime, data: f.base64 } })),
            { type: 'text', text: m.content },
          ],
        };
        break;
      case 'tool':
        turn = { role: 'user', content: [{ type: 'tool_result', tool_use_id: m.tool_call_id ?? '', content: m.content }] };
        break;
      case 'assistant': {
        const blocks: ContentBlock[] = m.content ? [{ type: 'text', text: m.content }] : [];
        for (const call of m.tool_calls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
        turn = { role: 'assistant', content: blocks.length ? blocks : [{ type: 'text', text: '' }] };
        break;
      }
      default: {
        const unreachable: never = m.role;
        throw new Error(`unknown role ${String(unreachable)}`);
      }
    }
    const previous = out[out.length - 1];
    if (previous && previous.role === turn.role) previous.content.push(...turn.content);
    else out.push(turn);
  }
  return { ...(system ? { system } : {}), messages: out };
}

function toAnthropicTools(tools: ToolDefinition[]): Record<string, unknown>[] {
  return tools.map((t) => ({
    name: t.function.name,
    ...(t.function.description ? { description: t.function.description } : {}),
    input_schema: t.function.parameters ?? { type: 'object', properties: {} },
  }));
}

function toAnthropicToolChoice(choice: ToolChoice): Record<string, unknown> {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.function.name };
}

/** The Anthropic Messages API. It has no embeddings endpoint. */
export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic' as const;
  readonly model: string;
  private readonly http: ProviderHttp;

  constructor(options: AnthropicProviderOptions) {
    this.model = options.model ?? DEFAULT_ANTHROPIC_MODEL;
    this.http = new ProviderHttp({
      ...options,
      provider: 'anthropic',
      headers: { 'anthropic-version': ANTHROPIC_VERSION, ...(options.apiKey ? { 'x-api-key': options.apiKey } : {}) },
      secrets: options.apiKey ? [options.apiKey] : [],
    });
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const mapped = toAnthropicMessages(req.messages);
    const messages = mapped.messages;
    let system = mapped.system;
    if (messages.length === 0) {
      // The Messages API needs one user turn: a system-only request becomes that turn.
      messages.push({ role: 'user', content: [{ type: 'text', text: system ?? '' }] });
      system = undefined;
    }
    // The Messages API has no JSON mode; it is asked for in the system prompt.
    const jsonNote = req.jsonMode ? 'Respond with a single valid JSON object and nothing else.' : '';
    const systemText = [system, jsonNote].filter(Boolean).join('\n\n');
    const body: Record<string, unknown> = {
      model: req.model ?? this.model,
      max_tokens: req.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      messages,
      ...(systemText ? { system: systemText } : {}),
    };
    if (req.temperature !== undefined) body.temperature = Math.min(1, req.temperature);
    if (req.tools?.length) {
      body.tools = toAnthropicTools(req.tools);
      if (req.toolChoice !== undefined) body.tool_choice = toAnthropicToolChoice(req.toolChoice);
    }

    const data = asRecord(await this.http.post('/messages', body));
    const blocks = data?.content;
    if (!data || !Array.isArray(blocks)) throw new LlmProviderError('anthropic answered without content', 'anthropic');
    const texts: string[] = [];
    const toolCalls: ToolCall[] = [];
    for (const raw of blocks) {
      const block = asRecord(raw);
      if (block?.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      if (block?.type === 'tool_use' && typeof block.name === 'string') {
        toolCalls.push({
          id: typeof block.id === 'string' ? block.id : `toolu_${toolCalls.length}`,
          type: 'function',
          function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
        });
      }
    }
    const usage = asRecord(data.usage);
    return {
      content: texts.join(''),
      model: typeof data.model === 'string' ? data.model : String(body.model),
      usage: { prompt_tokens: tokenCount(usage?.input_tokens), completion_tokens: tokenCount(usage?.output_tokens) },
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    };
  }
}
