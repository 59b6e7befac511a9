import { MODEL_TYPES, type ModelType } from '@docflow/contracts';
import { BadRequestError, isPlainObject, parseBody, Satisfies } from '@docflow/service-kit';
import { allowedOrigins, allowedOriginsProblems, booleanProblems, integerProblems, isRecordId, nullableTextProblems, objectProblems, requestFields, required, slugProblems } from '../platform';
import type { FieldProblems } from '../platform';

export interface AgentSettings {
  name?: string;
  slug?: string;
  goal?: string | null;
  description?: string | null;
  availableTools?: string[];
  model?: ModelType;
  maxIterations?: number;
  temperature?: number;
  promptTitle?: string | null;
  conversational?: boolean;
  branding?: Record<string, unknown>;
  welcomeMessage?: string | null;
  mcpServers?: Record<string, unknown>[];
  active?: boolean;
  /** Docflow's own: the owner's collection made public to the agent's key holders (issue 13, item 11). */
  publicCollectionId?: number | null;
  /** Sites whose pages may call the public chat (issue 18, as a chatbot's `allowed_origins`); empty: any. */
  allowedOrigins?: string[];
}

const TEXT_MAX = 20_000;

const nameProblems: FieldProblems = (value) =>
  value === undefined || (typeof value === 'string' && value.trim() !== '' && value.length <= 255) ? [] : ['name: must be a non-empty string of at most 255 characters'];

const toolsProblems: FieldProblems = (value) =>
  value === undefined || (Array.isArray(value) && value.length <= 50 && value.every((t) => typeof t === 'string' && t !== '' && t.length <= 100))
    ? []
    : ['available_tools: must be an array of at most 50 tool names'];

const modelProblems: FieldProblems = (value) =>
  value === undefined || (typeof value === 'string' && (MODEL_TYPES as readonly string[]).includes(value)) ? [] : [`model: one of ${MODEL_TYPES.join(', ')}`];

const temperatureProblems: FieldProblems = (value) =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 2) ? [] : ['temperature: must be a number from 0 to 2'];

const publicCollectionProblems: FieldProblems = (value) => (value === undefined || value === null || isRecordId(value) ? [] : ['public_collection_id: must be a collection id or null']);

const mcpProblems: FieldProblems = (value) =>
  value === undefined || (Array.isArray(value) && value.length <= 20 && value.every(isPlainObject)) ? [] : ['mcp_servers: must be an array of at most 20 objects'];

/** PUT /agents/{id}: any of the agent's fields (2.10 and ours), each checked on its own. */
export class UpdateAgentRequest {
  @Satisfies(nameProblems)
  name?: string;

  @Satisfies(slugProblems())
  slug?: string | null;

  @Satisfies(nullableTextProblems('goal', TEXT_MAX))
  goal?: string | null;

  @Satisfies(nullableTextProblems('description', TEXT_MAX))
  description?: string | null;

  @Satisfies(nullableTextProblems('prompt_title', 255))
  prompt_title?: string | null;

  @Satisfies(nullableTextProblems('welcome_message', TEXT_MAX))
  welcome_message?: string | null;

  @Satisfies(toolsProblems)
  available_tools?: string[];

  @Satisfies(modelProblems)
  model?: ModelType;

  @Satisfies(integerProblems(1, 50, 'max_iterations: must be an integer from 1 to 50'))
  max_iterations?: number;

  @Satisfies(temperatureProblems)
  temperature?: number;

  @Satisfies(booleanProblems('conversational'))
  conversational?: boolean;

  @Satisfies(booleanProblems('active'))
  active?: boolean;

  @Satisfies(objectProblems('branding'))
  branding?: Record<string, unknown>;

  @Satisfies(publicCollectionProblems)
  public_collection_id?: number | null;

  @Satisfies(allowedOriginsProblems)
  allowed_origins?: string[];

  @Satisfies(mcpProblems)
  mcp_servers?: Record<string, unknown>[];
}

/** POST /agents: the same fields, `name` required. */
export class CreateAgentRequest extends UpdateAgentRequest {
  @Satisfies(required('name', nameProblems))
  declare name: string;
}

/** The settings a valid request gives (a null slug is none given). */
function toSettings(request: UpdateAgentRequest): AgentSettings {
  const out: AgentSettings = {};
  if (request.name !== undefined) out.name = request.name.trim();
  if (typeof request.slug === 'string') out.slug = request.slug;
  if (request.goal !== undefined) out.goal = request.goal;
  if (request.description !== undefined) out.description = request.description;
  if (request.prompt_title !== undefined) out.promptTitle = request.prompt_title;
  if (request.welcome_message !== undefined) out.welcomeMessage = request.welcome_message;
  if (request.available_tools !== undefined) out.availableTools = [...new Set(request.available_tools)];
  if (request.model !== undefined) out.model = request.model;
  if (request.max_iterations !== undefined) out.maxIterations = request.max_iterations;
  if (request.temperature !== undefined) out.temperature = request.temperature;
  if (request.conversational !== undefined) out.conversational = request.conversational;
  if (request.active !== undefined) out.active = request.active;
  if (request.branding !== undefined) out.branding = request.branding;
  if (request.public_collection_id !== undefined) out.publicCollectionId = request.public_collection_id;
  if (request.allowed_origins !== undefined) out.allowedOrigins = allowedOrigins(request.allowed_origins);
  if (request.mcp_servers !== undefined) out.mcpServers = request.mcp_servers;
  return out;
}

const INVALID_AGENT = 'Invalid agent';

/** POST /agents: `{data: agent fields}` (name required) or flat, read with parseBody (400 `Invalid agent`). */
export function parseCreateAgent(body: unknown): AgentSettings & { name: string } {
  const settings = toSettings(parseBody(CreateAgentRequest, requestFields(body), { message: INVALID_AGENT }));
  return { ...settings, name: settings.name as string };
}

/** PUT /agents/{id}: any of the fields; at least one. */
export function parseUpdateAgent(body: unknown): AgentSettings {
  const settings = toSettings(parseBody(UpdateAgentRequest, requestFields(body), { message: INVALID_AGENT }));
  if (Object.keys(settings).length === 0)
    throw BadRequestError.withErrors(INVALID_AGENT, [
      'give at least one agent field (name, description, goal, available_tools, model, max_iterations, temperature, active, branding, mcp_servers, ...)',
    ]);
  return settings;
}

export interface FileRef {
  url: string;
  mime_type?: string;
  name?: string;
}

function fileUrlsProblems(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > 10) return ['file_urls: must be an array of at most 10 {url, mime_type, name}'];
  return value.flatMap((f: unknown, i) => (isPlainObject(f) && typeof f['url'] === 'string' ? [] : [`file_urls[${i}]: needs a url`]));
}

/** POST /agents/{slug}/public-chat (4.11). */
export class PublicChatRequest {
  @Satisfies((value) =>
    typeof value !== 'string' || value.trim() === '' ? ['query: is required and must be a non-empty string'] : value.length > 20_000 ? ['query: must be at most 20000 characters'] : [],
  )
  query!: string;

  @Satisfies((value) => (value === undefined || value === null || (typeof value === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(value)) ? [] : ['session_id: letters, digits and . _ : -, at most 64']))
  session_id?: string | null;

  @Satisfies(fileUrlsProblems)
  file_urls?: Record<string, unknown>[] | null;
}

/** POST /agents/{slug}/public-chat: `{query, session_id?, file_urls?}`; session_id may also come as a query parameter. */
export function parsePublicChat(body: unknown, sessionParam: unknown): { query: string; sessionId?: string; files: FileRef[] } {
  const fields = requestFields(body);
  const request = parseBody(PublicChatRequest, { ...fields, session_id: fields['session_id'] ?? sessionParam }, { message: 'Invalid chat request' });
  const files = (request.file_urls ?? []).map((f) => ({
    url: f['url'] as string,
    ...(typeof f['mime_type'] === 'string' ? { mime_type: f['mime_type'] } : {}),
    ...(typeof f['name'] === 'string' ? { name: f['name'] } : {}),
  }));
  return { query: request.query.trim(), ...(typeof request.session_id === 'string' ? { sessionId: request.session_id } : {}), files };
}

export interface MessageInput {
  role: 'user' | 'assistant' | 'system';
  content: string;
  metadata: Record<string, unknown>;
  attachments: Record<string, unknown>[] | null;
}

/** A conversation message; `role` defaults to user, `metadata` to `{}`. */
export class MessageRequest {
  @Satisfies((value) => (value === undefined || value === null || value === 'user' || value === 'assistant' || value === 'system' ? [] : ['role: one of user, assistant, system']))
  role?: MessageInput['role'] | null;

  @Satisfies((value) =>
    typeof value !== 'string' || value === '' ? ['content: is required and must be a non-empty string'] : value.length > 100_000 ? ['content: must be at most 100000 characters'] : [],
  )
  content!: string;

  @Satisfies((value) => (value === undefined || value === null || isPlainObject(value) ? [] : ['metadata: must be an object']))
  metadata?: Record<string, unknown> | null;

  @Satisfies((value) => (value === undefined || value === null || (Array.isArray(value) && value.every(isPlainObject)) ? [] : ['attachments: must be an array of objects']))
  attachments?: Record<string, unknown>[] | null;
}

/** `{role, content, metadata}` (wrapped or flat) of a conversation message, read with parseBody (400 `Invalid message`). */
export function parseMessage(body: unknown): MessageInput {
  const request = parseBody(MessageRequest, requestFields(body), { message: 'Invalid message' });
  return { role: request.role ?? 'user', content: request.content, metadata: request.metadata ?? {}, attachments: request.attachments ?? null };
}

/** An escalation's status change. */
export class EscalationRequest {
  @Satisfies((value) => (typeof value !== 'string' || value.trim() === '' || value.length > 50 ? ['escalation_status: is required, a string of at most 50 characters'] : []))
  escalation_status!: string;

  @Satisfies(nullableTextProblems('escalation_reason', TEXT_MAX))
  escalation_reason?: string | null;

  @Satisfies(nullableTextProblems('assigned_agent', 255))
  assigned_agent?: string | null;
}

/** `{escalation_status, escalation_reason?, assigned_agent?}`, read with parseBody (400 `Invalid escalation`). */
export function parseEscalation(body: unknown): { escalationStatus: string; escalationReason?: string | null; assignedAgent?: string | null } {
  const request = parseBody(EscalationRequest, requestFields(body), { message: 'Invalid escalation' });
  return {
    escalationStatus: request.escalation_status.trim(),
    ...(request.escalation_reason !== undefined ? { escalationReason: request.escalation_reason } : {}),
    ...(request.assigned_agent !== undefined ? { assignedAgent: request.assigned_agent } : {}),
  };
}

/** POST /agent-conversations. */
export class CreateConversationRequest {
  @Satisfies(nullableTextProblems('title', 255))
  title?: string | null;

  @Satisfies((value) => (value === undefined || value === null || isPlainObject(value) ? [] : ['agent_config: must be an object']))
  agent_config?: Record<string, unknown> | null;

  @Satisfies((value) => (value === undefined || value === null || isRecordId(value) ? [] : ['agent_id: must be an agent id']))
  agent_id?: number | null;
}

/** POST /agent-conversations: `{data: {title, agent_config, agent_id}}`, read with parseBody (400 `Invalid conversation`). */
export function parseCreateConversation(body: unknown): { title: string | null; agentConfig: Record<string, unknown>; agentId: number | null } {
  const request = parseBody(CreateConversationRequest, requestFields(body), { message: 'Invalid conversation' });
  return { title: request.title ?? null, agentConfig: request.agent_config ?? {}, agentId: request.agent_id ?? null };
}
