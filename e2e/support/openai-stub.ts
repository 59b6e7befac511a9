import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The part of an OpenAI chat-completions request body the stub reads. */
export interface ChatCompletionBody {
  model?: string;
  messages?: { role: string; content: string }[];
  response_format?: { type: string };
  temperature?: number;
  max_tokens?: number;
  [key: string]: unknown;
}

/** What the stub answers one chat-completions request with. */
export interface StubAnswer {
  /** The assistant message's content (text, or JSON written as text). */
  content: string;
  promptTokens: number;
  completionTokens: number;
  /** Any status other than 200 answers `{error: {message}}` instead of a completion. */
  status?: number;
}

export type Answerer = (body: ChatCompletionBody) => StubAnswer;

export interface OpenAiStubOptions {
  answer: Answerer;
  /** The `model` field of every answer (a dated name is priced by its longest known prefix). */
  model?: string;
  /** Keep every request body (tests); off for benchmarks, where it would only grow. */
  record?: boolean;
}

/**
 * A loopback server speaking the OpenAI chat-completions protocol
 * (`POST /v1/chat/completions`, with a `usage` block), for end-to-end tests
 * and benchmarks: point `LLM_PROVIDER_A_URL` at `baseUrl`. Other paths
 * answer 404 in OpenAI's error shape.
 */
export class OpenAiStub {
  readonly requests: ChatCompletionBody[] = [];
  /** Every request's `authorization` header, in order (recorded only with `record`). */
  readonly authorizations: (string | undefined)[] = [];
  private served = 0;
  private opened = 0;
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  private constructor(
    private readonly server: http.Server,
    private readonly options: OpenAiStubOptions,
  ) {}

  static async start(options: OpenAiStubOptions): Promise<OpenAiStub> {
    const holder: { self?: OpenAiStub } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => holder.self?.serve(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    server.keepAliveTimeout = 60000;
    server.on('connection', () => holder.self && (holder.self.opened += 1));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    holder.self = new OpenAiStub(server, options);
    return holder.self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `http://127.0.0.1:<port>/v1`, what LLM_PROVIDER_A_URL takes. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Chat-completions requests answered so far. */
  get count(): number {
    return this.served;
  }

  /** TCP connections accepted so far (a keep-alive client opens few). */
  get connections(): number {
    return this.opened;
  }

  /** Resolves once `count` chat-completions requests arrived in all; rejects after `ms`. */
  waitForRequests(count: number, ms = 15000): Promise<void> {
    if (this.served >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the OpenAI stub got ${this.served} of ${count} requests within ${ms} ms`)), ms);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(req: http.IncomingMessage, raw: string, res: http.ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return this.send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
    }
    let body: ChatCompletionBody;
    try {
      body = JSON.parse(raw) as ChatCompletionBody;
    } catch {
      return this.send(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
    }
    if (this.options.record) {
      this.requests.push(body);
      this.authorizations.push(req.headers.authorization);
    }
    this.served += 1;
    for (const w of [...this.waiters]) {
      if (this.served >= w.count) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
    const answer = this.options.answer(body);
    if (answer.status !== undefined && answer.status !== 200) {
      return this.send(res, answer.status, { error: { message: answer.content, type: 'server_error' } });
    }
    this.send(res, 200, {
      id: `chatcmpl-stub-${this.served}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: this.options.model ?? body.model ?? 'gpt-4o-mini',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: answer.content } }],
      usage: { prompt_tokens: answer.promptTokens, completion_tokens: answer.completionTokens, total_tokens: answer.promptTokens + answer.completionTokens },
    });
  }

  private send(res: http.ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }
}

/** The text of every message of a request, joined: what a test searches for the document text. */
export function requestText(body: ChatCompletionBody): string {
  return (body.messages ?? []).map((m) => m.content).join('\n');
}
