import { MODEL_TYPES, type ModelType } from '@docflow/contracts';
import { BadRequestError } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import { requestFields } from '../platform';
import { parseAllowedOrigins, SLUG_MAX, SLUG_PATTERN } from '../platform';

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
/** Record ids are 32-bit integers; a larger number names no agent (and would fail in the database). */
const MAX_ID = 2_147_483_647;

function text(fields: Record<string, unknown>, key: string, errors: string[], max = TEXT_MAX): string | null | undefined {
  const v = fields[key];
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== 'string') errors.push(`${key}: must be a string`);
  else if (v.length > max) errors.push(`${key}: must be at most ${max} characters`);
  else return v;
  return undefined;
}

function readSettings(fields: Record<string, unknown>, errors: string[]): AgentSettings {
  const out: AgentSettings = {};
  const name = fields['name'];
  if (name !== undefined) {
    if (typeof name !== 'string' || name.trim() === '' || name.length > 255) errors.push('name: must be a non-empty string of at most 255 characters');
    else out.name = name.trim();
  }
  const slug = fields['slug'];
  if (slug !== undefined && slug !== null) {
    if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug) || slug.length > SLUG_MAX) errors.push(`slug: lower-case letters and digits in dash-separated words, at most ${SLUG_MAX} characters`);
    else out.slug = slug;
  }
  const goal = text(fields, 'goal', errors);
  if (goal !== undefined) out.goal = goal;
  const description = text(fields, 'description', errors);
  if (description !== undefined) out.description = description;
  const promptTitle = text(fields, 'prompt_title', errors, 255);
  if (promptTitle !== undefined) out.promptTitle = promptTitle;
  const welcome = text(fields, 'welcome_message', errors);
  if (welcome !== undefined) out.welcomeMessage = welcome;
  const tools = fields['available_tools'];
  if (tools !== undefined) {
    if (!Array.isArray(tools) || tools.length > 50 || tools.some((t) => typeof t !== 'string' || t === '' || t.length > 100)) errors.push('available_tools: must be an array of at most 50 tool names');
    else out.availableTools = [...new Set(tools as string[])];
  }
  const model = fields['model'];
  if (model !== undefined) {
    if (typeof model !== 'string' || !(MODEL_TYPES as readonly string[]).includes(model)) errors.push(`model: one of ${MODEL_TYPES.join(', ')}`);
    else out.model = model as ModelType;
  }
  const iterations = fields['max_iterations'];
  if (iterations !== undefined) {
    if (typeof iterations !== 'number' || !Number.isInteger(iterations) || iterations < 1 || iterations > 50) errors.push('max_iterations: must be an integer from 1 to 50');
    else out.maxIterations = iterations;
  }
  const temperature = fields['temperature'];
  if (temperature !== undefined) {
    if (typeof temperature !== 'number' || !Number.isFinite(temperature) || temperature < 0 || temperature > 2) errors.push('temperature: must be a number from 0 to 2');
    else out.temperature = temperature;
  }
  for (const [key, set] of [
    ['conversational', (v: boolean) => (out.conversational = v)],
    ['active', (v: boolean) => (out.active = v)],
  ] as const) {
    const v = fields[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') errors.push(`${key}: must be true or false`);
    else set(v);
  }
  const branding = fields['branding'];
  if (branding !== undefined) {
    if (!isPlainObject(branding)) errors.push('branding: must be an object');
    else out.branding = branding;
  }
  const publicCollection = fields['public_collection_id'];
  if (publicCollection !== undefined) {
    if (publicCollection !== null && (typeof publicCollection !== 'number' || !Number.isInteger(publicCollection) || publicCollection < 1 || publicCollection > MAX_ID)) {
      errors.push('public_collection_id: must be a collection id or null');
    } else out.publicCollectionId = publicCollection;
  }
  if (fields['allowed_origins'] !== undefined) {
    const origins = parseAllowedOrigins(fields['allowed_origins'], errors);
    if (origins) out.allowedOrigins = origins;
  }
  const mcp = fields['mcp_servers'];
  if (mcp !== undefined) {
    if (!Array.isArray(mcp) || mcp.length > 20 || !mcp.every(isPlainObject)) errors.push('mcp_servers: must be an array of at most 20 objects');
    else out.mcpServers = mcp;
  }
  return out;
}

/** POST /agents: `{data: agent fields}` (name required) or flat. */
export function parseCreateAgent(body: unknown): AgentSettings & { name: string } {
  const fields = requestFields(body);
  const errors: string[] = [];
  const settings = readSettings(fields, errors);
  if (fields['name'] === undefined) errors.push('name: is required');
  if (errors.length > 0 || settings.name === undefined) throw BadRequestError.withErrors('Invalid agent', errors);
  return { ...settings, name: settings.name };
}

/** PUT /agents/{id}: any of the fields; at least one. */
export function parseUpdateAgent(body: unknown): AgentSettings {
  const fields = requestFields(body);
  const errors: string[] = [];
  const settings = readSettings(fields, errors);
  if (errors.length === 0 && Object.keys(settings).length === 0)
    errors.push('give at least one agent field (name, description, goal, available_tools, model, max_iterations, temperature, active, branding, mcp_servers, ...)');
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid agent', errors);
  return settings;
}

export interface FileRef {
  url: string;
  mime_type?: string;
  name?: string;
}

/** POST /agents/{slug}/public-chat: `{query, session_id?, file_urls?}`; session_id may also come as a query parameter. */
export function parsePublicChat(body: unknown, sessionParam: unknown): { query: string; sessionId?: string; files: FileRef[] } {
  const fields = requestFields(body);
  const errors: string[] = [];
  const query = fields['query'];
  if (typeof query !== 'string' || query.trim() === '') errors.push('query: is required and must be a non-empty string');
  else if (query.length > 20_000) errors.push('query: must be at most 20000 characters');
  const session = fields['session_id'] ?? sessionParam;
  if (session !== undefined && session !== null && (typeof session !== 'string' || !/^[A-Za-z0-9._:-]{1,64}$/.test(session))) errors.push('session_id: letters, digits and . _ : -, at most 64');
  const files: FileRef[] = [];
  const raw = fields['file_urls'];
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw) || raw.length > 10) errors.push('file_urls: must be an array of at most 10 {url, mime_type, name}');
    else
      for (const [i, f] of raw.entries()) {
        if (!isPlainObject(f) || typeof f['url'] !== 'string') errors.push(`file_urls[${i}]: needs a url`);
        else files.push({ url: f['url'], ...(typeof f['mime_type'] === 'string' ? { mime_type: f['mime_type'] } : {}), ...(typeof f['name'] === 'string' ? { name: f['name'] } : {}) });
      }
  }
  if (errors.length > 0 || typeof query !== 'string') throw BadRequestError.withErrors('Invalid chat request', errors);
  return { query: query.trim(), ...(typeof session === 'string' ? { sessionId: session } : {}), files };
}

export interface MessageInput {
  role: 'user' | 'assistant' | 'system';
  content: string;
  metadata: Record<string, unknown>;
  attachments: Record<string, unknown>[] | null;
}

/** `{role, content, metadata}` (wrapped or flat) of a conversation message. */
export function parseMessage(body: unknown): MessageInput {
  const fields = requestFields(body);
  const errors: string[] = [];
  const role = fields['role'] ?? 'user';
  if (role !== 'user' && role !== 'assistant' && role !== 'system') errors.push('role: one of user, assistant, system');
  const content = fields['content'];
  if (typeof content !== 'string' || content === '') errors.push('content: is required and must be a non-empty string');
  else if (content.length > 100_000) errors.push('content: must be at most 100000 characters');
  const metadata = fields['metadata'] ?? {};
  if (!isPlainObject(metadata)) errors.push('metadata: must be an object');
  const attachments = fields['attachments'] ?? null;
  if (attachments !== null && (!Array.isArray(attachments) || !attachments.every(isPlainObject))) errors.push('attachments: must be an array of objects');
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid message', errors);
  return { role: role as MessageInput['role'], content: content as string, metadata: metadata as Record<string, unknown>, attachments: attachments as Record<string, unknown>[] | null };
}

/** `{escalation_status, escalation_reason?, assigned_agent?}`. */
export function parseEscalation(body: unknown): { escalationStatus: string; escalationReason?: string | null; assignedAgent?: string | null } {
  const fields = requestFields(body);
  const errors: string[] = [];
  const status = fields['escalation_status'];
  if (typeof status !== 'string' || status.trim() === '' || status.length > 50) errors.push('escalation_status: is required, a string of at most 50 characters');
  const reason = text(fields, 'escalation_reason', errors);
  const assigned = text(fields, 'assigned_agent', errors, 255);
  if (errors.length > 0 || typeof status !== 'string') throw BadRequestError.withErrors('Invalid escalation', errors);
  return { escalationStatus: status.trim(), ...(reason !== undefined ? { escalationReason: reason } : {}), ...(assigned !== undefined ? { assignedAgent: assigned } : {}) };
}

/** POST /agent-conversations: `{data: {title, agent_config, agent_id}}`. */
export function parseCreateConversation(body: unknown): { title: string | null; agentConfig: Record<string, unknown>; agentId: number | null } {
  const fields = requestFields(body);
  const errors: string[] = [];
  const title = text(fields, 'title', errors, 255) ?? null;
  const config = fields['agent_config'] ?? {};
  if (!isPlainObject(config)) errors.push('agent_config: must be an object');
  const rawId = fields['agent_id'] ?? null;
  const agentId = rawId === null ? null : typeof rawId === 'number' && Number.isInteger(rawId) && rawId > 0 && rawId <= MAX_ID ? rawId : undefined;
  if (agentId === undefined) errors.push('agent_id: must be an agent id');
  if (errors.length > 0 || agentId === undefined) throw BadRequestError.withErrors('Invalid conversation', errors);
  return { title, agentConfig: config as Record<string, unknown>, agentId };
}
