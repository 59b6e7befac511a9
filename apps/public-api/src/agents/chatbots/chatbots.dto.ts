import { BadRequestError } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import { requestFields } from '../../platform';
import { parseAllowedOrigins } from '../../platform';
import { SLUG_MAX, SLUG_PATTERN } from '../../platform';

export const DEFAULT_RATE_LIMIT = 60;
const NAME_MAX = 255;
const WELCOME_MAX = 10_000;

export interface ChatbotSettings {
  name?: string;
  slug?: string;
  active?: boolean;
  welcomeMessage?: string | null;
  branding?: Record<string, unknown>;
  allowedOrigins?: string[];
  rateLimit?: number;
}

function readSettings(fields: Record<string, unknown>, errors: string[]): ChatbotSettings {
  const out: ChatbotSettings = {};
  const { name, slug, active, welcome_message, branding, allowed_origins, rate_limit } = fields;
  if (name !== undefined) {
    if (typeof name !== 'string' || name.trim() === '') errors.push('name: must be a non-empty string');
    else if (name.trim().length > NAME_MAX) errors.push(`name: must be at most ${NAME_MAX} characters`);
    else out.name = name.trim();
  }
  if (slug !== undefined && slug !== null) {
    if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug) || slug.length > SLUG_MAX) errors.push(`slug: lower-case letters and digits in dash-separated words, at most ${SLUG_MAX} characters`);
    else out.slug = slug;
  }
  if (active !== undefined) {
    if (typeof active !== 'boolean') errors.push('active: must be true or false');
    else out.active = active;
  }
  if (welcome_message !== undefined) {
    if (welcome_message !== null && typeof welcome_message !== 'string') errors.push('welcome_message: must be a string');
    else if (typeof welcome_message === 'string' && welcome_message.length > WELCOME_MAX) errors.push(`welcome_message: must be at most ${WELCOME_MAX} characters`);
    else out.welcomeMessage = welcome_message;
  }
  if (branding !== undefined) {
    if (!isPlainObject(branding) || JSON.stringify(branding).length > 20_000) errors.push('branding: must be an object (at most 20,000 characters as JSON)');
    else out.branding = branding;
  }
  if (allowed_origins !== undefined) {
    const origins = parseAllowedOrigins(allowed_origins, errors);
    if (origins) out.allowedOrigins = origins;
  }
  if (rate_limit !== undefined) {
    if (typeof rate_limit !== 'number' || !Number.isInteger(rate_limit) || rate_limit < 1 || rate_limit > 100_000) errors.push('rate_limit: must be an integer from 1 to 100000 (questions a minute)');
    else out.rateLimit = rate_limit;
  }
  return out;
}

/** POST /chatbots: `{data: {name (required), slug, welcome_message, branding, allowed_origins, rate_limit, active}}` or flat. */
export function parseCreateChatbot(body: unknown): ChatbotSettings & { name: string } {
  const fields = requestFields(body);
  const errors: string[] = [];
  const settings = readSettings(fields, errors);
  if (fields['name'] === undefined) errors.push('name: is required');
  if (errors.length > 0 || settings.name === undefined) throw BadRequestError.withErrors('Invalid chatbot', errors);
  return { ...settings, name: settings.name };
}

/** PUT /chatbots/{id}: any of the settings; at least one. */
export function parseUpdateChatbot(body: unknown): ChatbotSettings {
  const fields = requestFields(body);
  const errors: string[] = [];
  const settings = readSettings(fields, errors);
  if (errors.length === 0 && Object.keys(settings).length === 0) errors.push('give at least one of name, slug, active, welcome_message, branding, allowed_origins, rate_limit');
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid chatbot', errors);
  return settings;
}

/** POST /chatbots/{slug}/chat: `{query, session_id?}` (session_id may also be a query parameter). */
export function parseChatQuestion(body: unknown, sessionParam: unknown): { query: string; sessionId?: string } {
  const fields = requestFields(body);
  const errors: string[] = [];
  const query = fields['query'];
  if (typeof query !== 'string' || query.trim() === '') errors.push('query: is required and must be a non-empty string');
  else if (query.length > 4000) errors.push('query: must be at most 4000 characters');
  const session = fields['session_id'] ?? sessionParam;
  if (session !== undefined && (typeof session !== 'string' || session.length === 0 || session.length > 200)) errors.push('session_id: must be a string of at most 200 characters');
  if (errors.length > 0 || typeof query !== 'string') throw BadRequestError.withErrors('Invalid question', errors);
  return { query: query.trim(), ...(typeof session === 'string' ? { sessionId: session } : {}) };
}
