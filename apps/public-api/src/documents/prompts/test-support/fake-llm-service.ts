import { HttpTarget, type TargetReply } from '@docflow/testing';
/** One call the fake LLM service received. */
export interface ReceivedExtract {
  body: Record<string, unknown>;
  serviceKey: string | undefined;
}

/**
 * `answer`: 200 with `content` (a provider `fake`); `fail`: 500 with the
 * internal error body; `hang`: never answers (until close), for timeouts.
 */
export type FakeLlmMode = 'answer' | 'fail' | 'hang';

/** A loopback server (HttpTarget) speaking the LLM service's POST /api/v1/extract (spec 4.16). */
export class FakeLlmService {
  readonly calls: ReceivedExtract[] = [];
  mode: FakeLlmMode = 'answer';
  content: unknown = {};

  private constructor(private readonly target: HttpTarget) {}

  static async start(): Promise<FakeLlmService> {
    const fake = new FakeLlmService(await HttpTarget.start());
    fake.target
      .on('POST /api/v1/extract', (hit) => {
        const key = hit.headers['x-service-key'];
        fake.calls.push({ body: (hit.json ?? {}) as Record<string, unknown>, serviceKey: typeof key === 'string' ? key : undefined });
        return fake.reply();
      })
      .otherwise(() => ({ status: 404, body: { error: 'not_found', message: 'Not found' } }));
    return fake;
  }

  get url(): string {
    return this.target.url('');
  }

  close(): Promise<void> {
    return this.target.stop();
  }

  private reply(): TargetReply {
    switch (this.mode) {
      case 'answer':
        return { body: { content: this.content, model: 'fake-model', provider: 'fake', cost: 0.0012 } };
      case 'fail':
        return { status: 500, body: { error: 'internal_error', message: 'provider exploded', details: {} } };
      case 'hang':
        return { hang: true }; // the response stays open until close() drops the connection
      default: {
        const never: never = this.mode;
        throw new Error(`unknown mode ${String(never)}`);
      }
    }
  }
}
