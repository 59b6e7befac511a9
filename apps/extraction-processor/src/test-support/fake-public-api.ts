import { LoopbackApi } from './loopback-api';

export interface FakeDocument {
  id: number;
  ownerId: number;
  title: string;
  mime_type?: string;
  text: string | null;
  pages?: { page: number; text: string }[] | null;
  /** Statuses answered in turn; the last one repeats. Default ['completed']. */
  statuses?: string[];
}

export interface FakePrompt {
  id: number;
  /** undefined: a system prompt, visible to everyone. */
  ownerId?: number;
  title: string;
  type: string;
  section?: string;
  description?: string;
  roles?: { role: string; prompt: string }[];
  tasks?: string[];
  instructions?: string[];
  outputFormat?: string;
  exampleOutput?: Record<string, unknown>;
}

/**
 * The public API's internal content endpoints as the processors call them:
 * document text and visible prompts, behind X-Service-Key, with another
 * user's document answered 404.
 */
export class FakePublicApi {
  readonly documents = new Map<number, FakeDocument>();
  readonly prompts: FakePrompt[] = [];
  private readonly reads = new Map<number, number>();

  private constructor(
    readonly api: LoopbackApi,
    private readonly serviceKey: string,
  ) {}

  static async start(serviceKey: string): Promise<FakePublicApi> {
    const fake = new FakePublicApi(await LoopbackApi.start(), serviceKey);
    fake.api.on('GET', /^\/api\/internal\/documents\/(\d+)\/text$/, (hit) => {
      if (hit.headers['x-service-key'] !== serviceKey) return { status: 401, body: { error: { status: 401, name: 'UnauthorizedError', message: 'Invalid X-Service-Key' } } };
      const id = Number(hit.params[0]);
      const doc = fake.documents.get(id);
      const userId = hit.query.get('user_id');
      if (!doc || (userId !== null && Number(userId) !== doc.ownerId)) return { status: 404, body: { error: { status: 404, name: 'NotFoundError', message: 'Document not found' } } };
      const n = fake.reads.get(id) ?? 0;
      fake.reads.set(id, n + 1);
      const statuses = doc.statuses ?? ['completed'];
      const status = statuses[Math.min(n, statuses.length - 1)] ?? 'completed';
      const done = status === 'completed';
      return {
        body: { document_id: id, title: doc.title, mime_type: doc.mime_type ?? 'application/pdf', text: done ? doc.text : null, pages: done ? (doc.pages ?? null) : null, text_status: status },
      };
    });
    fake.api.on('GET', /^\/api\/internal\/prompts$/, (hit) => {
      if (hit.headers['x-service-key'] !== serviceKey) return { status: 401, body: { error: { status: 401, name: 'UnauthorizedError', message: 'Invalid X-Service-Key' } } };
      const userId = Number(hit.query.get('user_id'));
      const type = hit.query.get('type');
      const visible = fake.prompts.filter((p) => (p.ownerId === undefined || p.ownerId === userId) && (type === null || p.type === type));
      return { body: { data: visible.map(({ ownerId, ...p }) => ({ ...p, level: ownerId === undefined ? 'system' : 'user' })) } };
    });
    return fake;
  }

  get url(): string {
    return this.api.url;
  }

  get key(): string {
    return this.serviceKey;
  }

  addDocument(doc: FakeDocument): this {
    this.documents.set(doc.id, doc);
    return this;
  }

  addPrompt(prompt: FakePrompt): this {
    this.prompts.push(prompt);
    return this;
  }

  stop(): Promise<void> {
    return this.api.stop();
  }
}
