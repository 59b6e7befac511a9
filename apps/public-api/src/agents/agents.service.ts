import type { DataShieldOptions } from '@docflow/contracts';
import { paginationMeta, type ListQuery, type PaginationMeta } from '@docflow/list-query';
import type { ChatCallMessage, LlmClient } from '@docflow/llm-client';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, type Logger } from '@docflow/service-kit';
import type { Caller } from '../workflows';
import { apiKeyMatches, newApiKey, originAllowed, PER_MINUTE, type RateLimits, sha256Hex } from '../platform';
import { slugify } from '../platform';
import type { AgentEntity } from './agent.entity';
import { type AgentRun, type RequestBudget, runAgent } from './agent-runner';
import { composerBlocksOf, navigationTargets, withoutModelBlocks } from './composer-tools';
import type { AgentTool, ComposerPreview, ComposerRecordType, ConfirmationGate, ListedRecord } from './agent-tools';
import type { AgentSettings, FileRef } from './agents.dto';
import type { AgentsRepository } from './agents.repository';
import type { McpToolbox } from './mcp/mcp-toolbox';
import { CONVERSATION_NOT_FOUND, type ConversationsService } from './conversations.service';
import { awaitsPerson, type EscalationStatus, HOLD_MESSAGE } from './escalation/escalation-states';

export const AGENT_NOT_FOUND = 'Agent not found';
/** How many earlier messages a conversational agent sees. */
const HISTORY = 20;

export interface AgentView {
  id: number;
  name: string;
  slug: string;
  goal: string | null;
  description: string | null;
  available_tools: string[];
  model: string;
  max_iterations: number;
  temperature: number;
  prompt_title: string | null;
  conversational: boolean;
  branding: Record<string, unknown>;
  welcome_message: string | null;
  mcp_servers: Record<string, unknown>[];
  active: boolean;
  /** Docflow's own: the collection whose documents key holders may list and search. */
  public_collection_id: number | null;
  /** Sites whose pages may call the public chat; empty: any. */
  allowed_origins: string[];
  owner: { id: number } | null;
  createdAt: string;
  updatedAt: string;
  api_key?: string;
}

export interface AgentsServiceDeps {
  repo: AgentsRepository;
  conversations: ConversationsService;
  llm: Pick<LlmClient, 'chat'>;
  tools: ReadonlyMap<string, AgentTool>;
  /** Public chat's limits: requests a minute per agent key and per session, and what one request may spend. */
  /** Per-key and per-session rates are counted in the limits shared by every public API process (PostgreSQL). */
  chatLimits: { limits: RateLimits; perKey: number; perSession: number; budget: RequestBudget };
  /** The owner's collections, for what an agent makes public (`public_collection_id`). */
  collections: { owns(userId: number, collectionId: number): Promise<boolean>; documentIds(collectionId: number): Promise<number[]> };
  /** Where the Composer's previews are confirmed (composer_confirmations). */
  confirmations: ConfirmationGate['store'];
  logger?: Logger;
  /** The agent's Data Shield option when its owner turned shielding on (apps/public-api/src/data-shield). */
  shieldFor?: (agent: AgentEntity) => Promise<DataShieldOptions | undefined>;
  /** Refuses (429) a chat once the acting user's monthly LLM cost quota is used up (issue 18). */
  llmBudget?: (userId: number) => Promise<void>;
  /** The agent's MCP servers' tools, listed at the start of each turn (mcp/mcp-toolbox.ts). */
  mcp?: Pick<McpToolbox, 'open'>;
}

/** Who asks a public chat: a key holder, or a signed-in user. */
export type ChatCaller = { key: string; origin?: string; referer?: string } | { user: Caller };

/** Agents (spec 2.10, 4.11): the owner's agents, their public config and chat; system agents (the Composer) are read-only. */
export class AgentsService {
  constructor(private readonly deps: AgentsServiceDeps) {}

  /** `apiKey` only in the answers of create and regenerate-key: the key is kept as its hash alone, so it is shown once. */
  private view(a: AgentEntity, apiKey?: string): AgentView {
    return {
      id: a.id,
      name: a.name,
      slug: a.slug,
      goal: a.goal,
      description: a.description,
      available_tools: a.availableTools,
      model: a.model,
      max_iterations: a.maxIterations,
      temperature: Math.round(a.temperature * 1000) / 1000,
      prompt_title: a.promptTitle,
      conversational: a.conversational,
      branding: a.branding,
      welcome_message: a.welcomeMessage,
      mcp_servers: a.mcpServers,
      active: a.active,
      public_collection_id: a.publicCollectionId,
      allowed_origins: a.allowedOrigins,
      owner: a.ownerId === null ? null : { id: a.ownerId },
      createdAt: a.createdAt.toISOString(),
      updatedAt: a.updatedAt.toISOString(),
      ...(apiKey !== undefined ? { api_key: apiKey } : {}),
    };
  }

  private newKey(): { key: string; apiKeyHash: string } {
    const key = newApiKey('agk');
    return { key, apiKeyHash: sha256Hex(key) };
  }

  /** Owned, or a system agent (read-only, for reading). */
  private async readable(user: Caller, id: number): Promise<AgentEntity> {
    const a = await this.deps.repo.findById(id);
    if (!a || (a.ownerId !== null && a.ownerId !== user.id)) throw new NotFoundError(AGENT_NOT_FOUND);
    return a;
  }

  private async writable(user: Caller, id: number): Promise<AgentEntity> {
    const a = await this.readable(user, id);
    if (a.ownerId === null) throw new ForbiddenError('System agents are read-only');
    return a;
  }

  async list(user: Caller, q: ListQuery): Promise<{ data: AgentView[]; meta: { pagination: PaginationMeta } }> {
    const { rows, total } = await this.deps.repo.listOwned(user.id, q);
    return { data: rows.map((a) => this.view(a)), meta: { pagination: paginationMeta(q.pagination, total) } };
  }

  async get(user: Caller, id: number): Promise<AgentView> {
    return this.view(await this.readable(user, id));
  }

  /** A `public_collection_id` must name one of the owner's collections. */
  private async checkPublicCollection(userId: number, s: AgentSettings): Promise<void> {
    if (s.publicCollectionId === undefined || s.publicCollectionId === null) return;
    if (!(await this.deps.collections.owns(userId, s.publicCollectionId))) {
      throw BadRequestError.withErrors('Invalid agent', [`public_collection_id: ${s.publicCollectionId} names no collection of yours`]);
    }
  }

  async create(user: Caller, s: AgentSettings & { name: string }): Promise<AgentView> {
    await this.checkPublicCollection(user.id, s);
    const { key, apiKeyHash } = this.newKey();
    const base = {
      ownerId: user.id,
      name: s.name,
      goal: s.goal ?? null,
      description: s.description ?? null,
      availableTools: s.availableTools ?? [],
      model: s.model ?? 'provider_a',
      maxIterations: s.maxIterations ?? 10,
      temperature: s.temperature ?? 0.3,
      promptTitle: s.promptTitle ?? null,
      conversational: s.conversational ?? false,
      branding: s.branding ?? {},
      welcomeMessage: s.welcomeMessage ?? null,
      mcpServers: s.mcpServers ?? [],
      active: s.active ?? true,
      publicCollectionId: s.publicCollectionId ?? null,
      allowedOrigins: s.allowedOrigins ?? [],
      apiKeyHash,
    };
    const first = s.slug ?? slugify(s.name, 'agent');
    for (let attempt = 0; ; attempt++) {
      const slug = attempt === 0 ? first : `${first}-${Math.random().toString(16).slice(2, 10)}`;
      const saved = await this.deps.repo.insert({ ...base, slug });
      if (saved !== 'slug_taken') return this.view(saved, key);
      if (s.slug !== undefined || attempt >= 3) throw new ConflictError(`The slug ${slug} is taken`, { errors: [`slug: ${slug} is taken`] });
    }
  }

  async update(user: Caller, id: number, s: AgentSettings): Promise<AgentView> {
    await this.writable(user, id);
    await this.checkPublicCollection(user.id, s);
    const updated = await this.deps.repo.update(id, s);
    if (updated === 'slug_taken') throw new ConflictError(`The slug ${s.slug ?? ''} is taken`, { errors: [`slug: ${s.slug ?? ''} is taken`] });
    if (!updated) throw new NotFoundError(AGENT_NOT_FOUND);
    return this.view(updated);
  }

  async delete(user: Caller, id: number): Promise<void> {
    await this.writable(user, id);
    await this.deps.repo.delete(id);
  }

  async regenerateKey(user: Caller, id: number): Promise<{ id: number; api_key: string }> {
    await this.writable(user, id);
    const { key, apiKeyHash } = this.newKey();
    const updated = await this.deps.repo.update(id, { apiKeyHash });
    if (!updated || updated === 'slug_taken') throw new NotFoundError(AGENT_NOT_FOUND);
    return { id, api_key: key };
  }

  private async limit(key: string, perMinute: number, where: string): Promise<void> {
    await this.deps.chatLimits.limits.enforce(key, PER_MINUTE(perMinute), `At most ${perMinute} chat requests a minute ${where}`);
  }

  /** The `allowed_origins` of an active agent (CORS, issue 18); undefined for an unknown or inactive one. */
  async allowedOrigins(slug: string): Promise<readonly string[] | undefined> {
    const a = await this.deps.repo.findBySlug(slug);
    return a && a.active ? a.allowedOrigins : undefined;
  }

  async publicConfig(
    slug: string,
  ): Promise<{ type: 'agent'; name: string; slug: string; description: string | null; welcome_message: string | null; branding: Record<string, unknown>; conversational: boolean }> {
    const a = await this.deps.repo.findBySlug(slug);
    if (!a || !a.active) throw new NotFoundError(AGENT_NOT_FOUND);
    return { type: 'agent', name: a.name, slug: a.slug, description: a.description, welcome_message: a.welcomeMessage, branding: a.branding, conversational: a.conversational };
  }

  /**
   * POST /agents/{slug}/public-chat. The agent's key, or a bearer token of
   * its owner (any signed-in user for a system agent). The turn is kept in
   * a conversation session (the one named, or a new one), owned by the
   * signed-in user, else by the agent's owner.
   */
  async publicChat(
    slug: string,
    caller: ChatCaller,
    turn: { query: string; sessionId?: string; files: FileRef[]; accepted?: (start: { session_id: string }) => void },
  ): Promise<AgentRun & { session_id: string; escalation_status: EscalationStatus }> {
    const agent = await this.deps.repo.findBySlug(slug);
    if (!agent) throw new NotFoundError(AGENT_NOT_FOUND);
    let actingUser: number;
    if ('key' in caller) {
      if (!agent.apiKeyHash || !apiKeyMatches(caller.key, agent.apiKeyHash) || agent.ownerId === null) throw new UnauthorizedError('Invalid agent key');
      actingUser = agent.ownerId;
    } else {
      if (agent.ownerId !== null && agent.ownerId !== caller.user.id) throw new UnauthorizedError('Send the agent key (X-Agent-Key) or the owner’s token');
      actingUser = caller.user.id;
    }
    if (!agent.active) throw new ForbiddenError('This agent is inactive');
    // A widget's page must be one the owner allowed (issue 18, as chatbots); a signed-in caller is trusted by the token.
    if ('key' in caller && !originAllowed(agent.allowedOrigins, caller.origin, caller.referer)) throw new ForbiddenError('This origin may not use the agent');
    if (this.deps.llmBudget) await this.deps.llmBudget(actingUser);
    const limits = this.deps.chatLimits;
    const keyHash = 'key' in caller ? agent.apiKeyHash : null;
    if (keyHash !== null) await this.limit(`agent-key:${keyHash}`, limits.perKey, 'with this agent key');

    const { conversations } = this.deps;
    const named = turn.sessionId !== undefined ? await conversations.find(turn.sessionId, undefined).catch(() => undefined) : undefined;
    // A session created by a parallel first turn with the same session_id comes back from create: checked like a found one.
    const session =
      named ??
      (await conversations.create(actingUser, {
        title: turn.query.slice(0, 120),
        agentConfig: {},
        agentId: agent.id,
        apiKeyHash: keyHash,
        ...(turn.sessionId !== undefined ? { sessionId: turn.sessionId } : {}),
      }));
    // A session belongs to the key it was made with (null: the signed-in user's own): another key's, or a key's for a signed-in caller, is 404.
    if (session.ownerId !== actingUser || session.agentId !== agent.id || session.apiKeyHash !== keyHash) throw new NotFoundError(CONVERSATION_NOT_FOUND);
    await this.limit(`agent-session:${session.id}`, limits.perSession, 'in this session');
    // Checks passed: a streamed answer starts here, before the model calls.
    turn.accepted?.({ session_id: session.sessionId });
    if (awaitsPerson(session.escalationStatus)) return this.heldTurn(session, turn);

    const history: ChatCallMessage[] = agent.conversational
      ? (await conversations.history(session.id, HISTORY)).filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content }))
      : [];
    const created: { type: ComposerRecordType; id: number; name: string }[] = [];
    const previews: ComposerPreview[] = [];
    const listed: ListedRecord[] = [];
    // Only the signed-in user whose account the tools write to can confirm a creation: a key
    // holder (a visitor of a public widget) never confirms for the agent's owner.
    const confirmations: ConfirmationGate = { allowed: 'user' in caller, userMessage: turn.query, store: this.deps.confirmations };
    const role = 'user' in caller ? caller.user.role : ('user' as const);
    // Key holders reach only the documents of the collection the owner made public to this agent.
    const publicDocumentIds = keyHash === null ? undefined : agent.publicCollectionId === null ? [] : await this.deps.collections.documentIds(agent.publicCollectionId);
    const ctx = { userId: actingUser, role, keyHolder: keyHash !== null, publicDocumentIds, confirmations, created, previews, listed, logger: this.deps.logger };
    const dataShield = await this.deps.shieldFor?.(agent);
    // Key holders get only the MCP tools the owner marked public; a server that is down only loses its tools for this turn.
    const mcp = await this.deps.mcp?.open(agent, keyHash !== null);
    let run: AgentRun;
    try {
      run = await runAgent(this.deps.llm, this.deps.tools, agent, ctx, {
        history,
        query: turn.query,
        files: turn.files,
        budget: limits.budget,
        ...(dataShield ? { dataShield } : {}),
        ...(mcp ? { mcpTools: mcp.tools } : {}),
      });
    } finally {
      await mcp?.close();
    }
    // The server, not the model, writes the 2.10 blocks: what the answer points to among the records listed this turn,
    // what the Composer previewed (with the confirmation id a client's confirm button sends) and what it created.
    run.answer = withoutModelBlocks(run.answer);
    const blocks = composerBlocksOf(previews, created, navigationTargets(run.answer, listed, created));
    if (blocks !== '') run.answer = run.answer === '' ? blocks : `${run.answer}\n\n${blocks}`;
    await conversations.append(session.id, [
      { role: 'user', content: turn.query, metadata: {}, attachments: turn.files.length > 0 ? turn.files.map((f) => ({ ...f })) : null },
      { role: 'assistant', content: run.answer, metadata: { tools_used: run.tools_used, steps: run.trace.length }, attachments: null },
    ]);
    return { ...run, session_id: session.sessionId, escalation_status: session.escalationStatus };
  }

  /**
   * A turn of a conversation a person holds (issue 19, item 4): the agent does not answer. The visitor's
   * message is kept; the answer is what the person replied since the visitor's previous message, or
   * else that a person will reply.
   */
  private async heldTurn(
    session: { id: number; sessionId: string; escalationStatus: EscalationStatus },
    turn: { query: string; files: FileRef[] },
  ): Promise<AgentRun & { session_id: string; escalation_status: EscalationStatus }> {
    const { conversations } = this.deps;
    const recent = await conversations.history(session.id, HISTORY);
    const lastVisitor = recent.map((m) => m.role).lastIndexOf('user');
    const replies = recent.slice(lastVisitor + 1).filter((m) => m.role === 'assistant' && m.metadata['human'] === true);
    await conversations.append(session.id, [{ role: 'user', content: turn.query, metadata: {}, attachments: turn.files.length > 0 ? turn.files.map((f) => ({ ...f })) : null }]);
    const answer = replies.length > 0 ? replies.map((m) => m.content).join('\n\n') : HOLD_MESSAGE;
    return { answer, trace: [], tools_used: [], session_id: session.sessionId, escalation_status: session.escalationStatus };
  }
}
