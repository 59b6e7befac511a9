import { randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '@docflow/service-kit';
import { apiKeyMatches, newApiKey, sha256Hex } from '../../platform';
import { originAllowed } from '../../platform';
import { slugify } from '../../platform';
import type { RagAnswer } from '../../rag';
import { PER_MINUTE, type RateLimits } from '../../platform';
import type { ChatbotEntity } from './chatbot.entity';
import type { ChatbotsRepository } from './chatbots.repository';
import { type ChatbotSettings, DEFAULT_RATE_LIMIT } from './chatbots.dto';

export const CHATBOT_NOT_FOUND = 'Chatbot not found';

export interface ChatbotView {
  id: number;
  name: string;
  slug: string;
  active: boolean;
  welcome_message: string | null;
  branding: Record<string, unknown>;
  allowed_origins: string[];
  rate_limit: number;
  query_count: number;
  owner: { id: number };
  createdAt: string;
  updatedAt: string;
  api_key?: string;
}

export interface ChatAnswer {
  answer: string;
  sources: { title: string; content: string; file_url: string; signed_url: string; document_id: number; page: number | null; score: number }[];
  session_id: string;
}

export interface ChatRequest {
  slug: string;
  key: string | undefined;
  origin: string | undefined;
  referer: string | undefined;
  query: string;
  sessionId?: string;
  /** Called once the checks passed, before the model call (a streamed answer starts then). */
  accepted?: (start: { session_id: string }) => void;
}

export interface ChatbotsServiceDeps {
  repo: ChatbotsRepository;
  /** RAG over a user's documents (RagService.query). */
  ask(ownerId: number, question: { query: string; topK: number; sessionId?: string }, chatbotId: number): Promise<RagAnswer>;
  /** Each chatbot's own `rate_limit` a minute, shared by every process. */
  limits: RateLimits;
}

function view(c: ChatbotEntity): ChatbotView {
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    active: c.active,
    welcome_message: c.welcomeMessage,
    branding: c.branding,
    allowed_origins: c.allowedOrigins,
    rate_limit: c.rateLimit,
    query_count: c.queryCount,
    owner: { id: c.ownerId },
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

const SOURCES = 5;

function slugTaken(slug: string): ConflictError {
  return new ConflictError(`The slug ${slug} is taken`, { errors: [`slug: ${slug} is taken`] });
}

/** Chatbots (spec 2.12, 4.12): the owner's public question-answering over their RAG-enabled documents. */
export class ChatbotsService {
  constructor(private readonly deps: ChatbotsServiceDeps) {}

  private async owned(ownerId: number, id: number): Promise<ChatbotEntity> {
    const c = await this.deps.repo.findOwned(id, ownerId);
    if (!c) throw new NotFoundError(CHATBOT_NOT_FOUND);
    return c;
  }

  async list(ownerId: number): Promise<ChatbotView[]> {
    return (await this.deps.repo.listOwned(ownerId)).map(view);
  }

  async get(ownerId: number, id: number): Promise<ChatbotView> {
    return view(await this.owned(ownerId, id));
  }

  /** A slug given by the client must be free (409); one made from the name gets a suffix when taken. */
  async create(ownerId: number, settings: ChatbotSettings & { name: string }): Promise<ChatbotView> {
    const key = newApiKey('cbk');
    const base = {
      ownerId,
      name: settings.name,
      active: settings.active ?? true,
      apiKeyHash: sha256Hex(key),
      welcomeMessage: settings.welcomeMessage ?? null,
      branding: settings.branding ?? {},
      allowedOrigins: settings.allowedOrigins ?? [],
      rateLimit: settings.rateLimit ?? DEFAULT_RATE_LIMIT,
      queryCount: 0,
    };
    const generated = settings.slug === undefined;
    const first = settings.slug ?? slugify(settings.name, 'chatbot');
    for (let attempt = 0; ; attempt++) {
      const slug = attempt === 0 ? first : `${first}-${randomUUID().slice(0, 8)}`;
      const saved = await this.deps.repo.insert({ ...base, slug });
      if (saved !== 'slug_taken') return { ...view(saved), api_key: key };
      if (!generated || attempt >= 3) throw slugTaken(slug);
    }
  }

  async update(ownerId: number, id: number, settings: ChatbotSettings): Promise<ChatbotView> {
    const updated = await this.deps.repo.update(id, ownerId, settings);
    if (updated === 'slug_taken') throw slugTaken(settings.slug ?? '');
    if (!updated) throw new NotFoundError(CHATBOT_NOT_FOUND);
    return view(updated);
  }

  async delete(ownerId: number, id: number): Promise<void> {
    if (!(await this.deps.repo.delete(id, ownerId))) throw new NotFoundError(CHATBOT_NOT_FOUND);
  }

  /** A new key; the previous one stops working at once. */
  async regenerateKey(ownerId: number, id: number): Promise<{ id: number; api_key: string }> {
    const key = newApiKey('cbk');
    if (!(await this.deps.repo.update(id, ownerId, { apiKeyHash: sha256Hex(key) }))) throw new NotFoundError(CHATBOT_NOT_FOUND);
    return { id, api_key: key };
  }

  /** The `allowed_origins` of an active chatbot (CORS, issue 18); undefined for an unknown or inactive one. */
  async allowedOrigins(slug: string): Promise<readonly string[] | undefined> {
    const c = await this.deps.repo.findBySlug(slug);
    return c && c.active ? c.allowedOrigins : undefined;
  }

  /** GET /chatbots/{slug}/config: what a widget shows before the first question; 404 for an inactive chatbot. */
  async publicConfig(slug: string): Promise<{ name: string; slug: string; welcome_message: string | null; branding: Record<string, unknown> }> {
    const c = await this.deps.repo.findBySlug(slug);
    if (!c || !c.active) throw new NotFoundError(CHATBOT_NOT_FOUND);
    return { name: c.name, slug: c.slug, welcome_message: c.welcomeMessage, branding: c.branding };
  }

  /**
   * POST /chatbots/{slug}/chat: no key 401, unknown slug 404, wrong key 401,
   * inactive 403, origin not allowed 403, over `rate_limit` a minute 429;
   * then RAG over the owner's documents.
   */
  async chat(req: ChatRequest): Promise<ChatAnswer> {
    if (req.key === undefined || req.key === '') throw new UnauthorizedError('Missing X-Chatbot-Key header');
    const c = await this.deps.repo.findBySlug(req.slug);
    if (!c) throw new NotFoundError(CHATBOT_NOT_FOUND);
    if (!apiKeyMatches(req.key, c.apiKeyHash)) throw new UnauthorizedError('Invalid chatbot key');
    if (!c.active) throw new ForbiddenError('This chatbot is inactive');
    if (!originAllowed(c.allowedOrigins, req.origin, req.referer)) throw new ForbiddenError('This origin may not use the chatbot');
    await this.deps.limits.enforce(`chatbot:${c.id}`, PER_MINUTE(c.rateLimit), `At most ${c.rateLimit} questions a minute for this chatbot`);
    const sessionId = req.sessionId ?? randomUUID();
    req.accepted?.({ session_id: sessionId });
    const answer = await this.deps.ask(c.ownerId, { query: req.query, topK: SOURCES, sessionId }, c.id);
    await this.deps.repo.countQuery(c.id);
    return {
      answer: answer.answer,
      sources: answer.sources.map((s) => ({
        title: s.document_name,
        content: s.chunk_text,
        file_url: s.file_url,
        signed_url: s.signed_url,
        document_id: s.document_id,
        page: s.page,
        score: s.score,
      })),
      session_id: sessionId,
    };
  }
}
