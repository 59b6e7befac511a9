import type http from 'node:http';
import { HttpTarget } from '@docflow/testing';

/** A request the stub received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface StubReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (to exercise client timeouts); the socket is closed when the stub stops. */
  hang?: boolean;
}

export type StubHandler = (req: RecordedRequest, index: number) => StubReply | Promise<StubReply>;

export interface StubServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A provider stub on libs/testing's HttpTarget (a real HTTP server on
 * 127.0.0.1 and an ephemeral port) that records every request and answers
 * with the handler's reply (tests only).
 */
export async function startStubServer(handler: StubHandler): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  const target = await HttpTarget.start();
  target
    .otherwise(async (hit) => {
      const recorded: RecordedRequest = { method: hit.method, path: hit.query ? `${hit.path}?${hit.query}` : hit.path, headers: hit.headers, body: hit.json };
      requests.push(recorded);
      const reply = await handler(recorded, requests.length - 1);
      return { ...reply, headers: { 'content-type': 'application/json', ...(reply.headers ?? {}) }, rawEmpty: true };
    })
    .onFailure((err) => ({ status: 500, body: String(err), headers: { 'content-type': 'text/plain' } }));
  return { url: target.url(''), requests, close: () => target.stop() };
}

/** An OpenAI chat-completions answer. */
export function openAiCompletion(content: string | null, options: { model?: string; prompt?: number; completion?: number; toolCalls?: unknown[] } = {}): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    model: options.model ?? 'gpt-4o-mini',
    choices: [{ index: 0, finish_reason: options.toolCalls ? 'tool_calls' : 'stop', message: { role: 'assistant', content, ...(options.toolCalls ? { tool_calls: options.toolCalls } : {}) } }],
    usage: { prompt_tokens: options.prompt ?? 10, completion_tokens: options.completion ?? 5, total_tokens: (options.prompt ?? 10) + (options.completion ?? 5) },
  };
}

/** An Anthropic Messages answer. */
export function anthropicMessage(blocks: unknown[], options: { model?: string; input?: number; output?: number } = {}): unknown {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: options.model ?? 'claude-3-5-haiku-20241022',
    content: blocks,
    stop_reason: 'end_turn',
    usage: { input_tokens: options.input ?? 12, output_tokens: options.output ?? 7 },
  };
}

/** Retry clock for tests: no real waiting; the waits asked for are recorded. */
export function recordingClock(start = 1_700_000_000_000): { now: () => number; sleep: (ms: number) => Promise<void>; random: () => number; sleeps: number[] } {
  const sleeps: number[] = [];
  let now = start;
  return {
    sleeps,
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => 0.5,
  };
}
