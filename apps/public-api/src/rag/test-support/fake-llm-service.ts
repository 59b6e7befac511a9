import { HttpTarget, type TargetHit } from '@docflow/testing';

export type ChatMode =
  /** Answers like the LLM service's local engine (provider local): RAG must quote sentences itself. */
  | 'local'
  /** Answers like a real model, with a fixed text (provider openai). */
  | 'model'
  /** 503 llm_service_unavailable. */
  | 'down';

export interface RecordedCall {
  path: string;
  serviceKey: string | undefined;
  body: Record<string, unknown>;
}

const DIMENSIONS = 64;

/** A deterministic hashed bag of words (the local engine's idea, smaller). */
export function fakeEmbedding(text: string): number[] {
  const v = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []) {
    let h = 0x811c9dc5;
    for (let i = 0; i < word.length; i += 1) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193) >>> 0;
    v[h % DIMENSIONS] = (v[h % DIMENSIONS] ?? 0) + 1;
  }
  return v;
}

/**
 * A loopback stand-in (HttpTarget) for the LLM service's /api/v1/embeddings and
 * /api/v1/chat, recording every call. Embeddings can be held back (a gate)
 * so that tests see a job in `processing`.
 */
export class FakeLlmService {
  readonly calls: RecordedCall[] = [];
  chatMode: ChatMode = 'local';
  modelAnswer = 'The door code is 4711 [1].';
  /** Chat answers given in order before chatMode applies: a model's replies, tool calls included. */
  chatReplies: { content: string; tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }[] = [];
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;

  private constructor(private readonly target: HttpTarget) {}

  static async start(): Promise<FakeLlmService> {
    const self = new FakeLlmService(await HttpTarget.start());
    self.target.otherwise((hit) => self.handle(hit));
    return self;
  }

  get url(): string {
    return this.target.url('');
  }

  /** Holds every embeddings call until `release`. */
  hold(): void {
    this.gate ??= new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = undefined;
    this.openGate = undefined;
  }

  callsTo(path: string): RecordedCall[] {
    return this.calls.filter((c) => c.path === path);
  }

  async stop(): Promise<void> {
    this.release();
    await this.target.stop();
  }

  private async handle(hit: TargetHit): Promise<{ status: number; body: unknown }> {
    const body = (hit.json ?? {}) as Record<string, unknown>;
    const path = hit.path;
    const key = hit.headers['x-service-key'];
    this.calls.push({ path, serviceKey: typeof key === 'string' ? key : undefined, body });
    if (path === '/api/v1/embeddings') {
      if (this.gate) await this.gate;
      const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
      return { status: 200, body: { embeddings: input.map(fakeEmbedding), model: 'hash-64', provider: 'fake', dimensions: DIMENSIONS, usage: { prompt_tokens: 1, total_tokens: 1 }, cost: 0 } };
    }
    if (path === '/api/v1/chat') {
      const scripted = this.chatReplies.shift();
      if (scripted) {
        return { status: 200, body: { message: { role: 'assistant', ...scripted }, model: 'gpt-test', provider: 'openai', usage: { prompt_tokens: 10, completion_tokens: 5 }, cost: 0.001 } };
      }
      switch (this.chatMode) {
        case 'down':
          return { status: 503, body: { error: 'llm_service_unavailable', message: 'provider down', details: { retry_after: 5 } } };
        case 'model':
          return {
            status: 200,
            body: { message: { role: 'assistant', content: this.modelAnswer }, model: 'gpt-test', provider: 'openai', usage: { prompt_tokens: 10, completion_tokens: 5 }, cost: 0.001 },
          };
        case 'local':
          return { status: 200, body: { message: { role: 'assistant', content: 'This answer comes from the local engine.' }, model: 'docflow-local', provider: 'local', usage: {}, cost: 0 } };
        default: {
          const never: never = this.chatMode;
          throw new Error(`unknown chat mode ${String(never)}`);
        }
      }
    }
    return { status: 404, body: { error: 'not_found', message: `no route ${path}` } };
  }
}
