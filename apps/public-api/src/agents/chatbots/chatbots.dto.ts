import { BadRequestError, isPlainObject, parseBody, Satisfies } from '@docflow/service-kit';
import { allowedOrigins, allowedOriginsProblems, booleanProblems, integerProblems, nullableTextProblems, requestFields, required, slugProblems } from '../../platform';
import type { FieldProblems } from '../../platform';

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

const nameProblems: FieldProblems = (value) => {
  if (value === undefined) return [];
  if (typeof value !== 'string' || value.trim() === '') return ['name: must be a non-empty string'];
  return value.trim().length > NAME_MAX ? [`name: must be at most ${NAME_MAX} characters`] : [];
};

const brandingProblems: FieldProblems = (value) =>
  value === undefined || (isPlainObject(value) && JSON.stringify(value).length <= 20_000) ? [] : ['branding: must be an object (at most 20,000 characters as JSON)'];

/** PUT /chatbots/{id}: any of the settings (2.14), each checked on its own. */
export class UpdateChatbotRequest {
  @Satisfies(nameProblems)
  name?: string;

  @Satisfies(slugProblems())
  slug?: string | null;

  @Satisfies(booleanProblems('active'))
  active?: boolean;

  @Satisfies(nullableTextProblems('welcome_message', WELCOME_MAX))
  welcome_message?: string | null;

  @Satisfies(brandingProblems)
  branding?: Record<string, unknown>;

  @Satisfies(allowedOriginsProblems)
  allowed_origins?: string[];

  @Satisfies(integerProblems(1, 100_000, 'rate_limit: must be an integer from 1 to 100000 (questions a minute)'))
  rate_limit?: number;
}

/** POST /chatbots: the same settings, `name` required. */
export class CreateChatbotRequest extends UpdateChatbotRequest {
  @Satisfies(required('name', nameProblems))
  declare name: string;
}

/** The settings a valid request gives (a null slug is none given). */
function toSettings(request: UpdateChatbotRequest): ChatbotSettings {
  const out: ChatbotSettings = {};
  if (request.name !== undefined) out.name = request.name.trim();
  if (typeof request.slug === 'string') out.slug = request.slug;
  if (request.active !== undefined) out.active = request.active;
  if (request.welcome_message !== undefined) out.welcomeMessage = request.welcome_message;
  if (request.branding !== undefined) out.branding = request.branding;
  if (request.allowed_origins !== undefined) out.allowedOrigins = allowedOrigins(request.allowed_origins);
  if (request.rate_limit !== undefined) out.rateLimit = request.rate_limit;
  return out;
}

const INVALID_CHATBOT = 'Invalid chatbot';

/** POST /chatbots: `{data: {name (required), slug, welcome_message, branding, allowed_origins, rate_limit, active}}` or flat, read with parseBody (400 `Invalid chatbot`). */
export function parseCreateChatbot(body: unknown): ChatbotSettings & { name: string } {
  const settings = toSettings(parseBody(CreateChatbotRequest, requestFields(body), { message: INVALID_CHATBOT }));
  return { ...settings, name: settings.name as string };
}

/** PUT /chatbots/{id}: any of the settings; at least one. */
export function parseUpdateChatbot(body: unknown): ChatbotSettings {
  const settings = toSettings(parseBody(UpdateChatbotRequest, requestFields(body), { message: INVALID_CHATBOT }));
  if (Object.keys(settings).length === 0) throw BadRequestError.withErrors(INVALID_CHATBOT, ['give at least one of name, slug, active, welcome_message, branding, allowed_origins, rate_limit']);
  return settings;
}

/** POST /chatbots/{slug}/chat (2.14). */
export class ChatQuestionRequest {
  @Satisfies((value) =>
    typeof value !== 'string' || value.trim() === '' ? ['query: is required and must be a non-empty string'] : value.length > 4000 ? ['query: must be at most 4000 characters'] : [],
  )
  query!: string;

  @Satisfies((value) => (value === undefined || (typeof value === 'string' && value.length > 0 && value.length <= 200) ? [] : ['session_id: must be a string of at most 200 characters']))
  session_id?: string;
}

/** POST /chatbots/{slug}/chat: `{query, session_id?}` (session_id may also be a query parameter), read with parseBody (400 `Invalid question`). */
export function parseChatQuestion(body: unknown, sessionParam: unknown): { query: string; sessionId?: string } {
  const fields = requestFields(body);
  const request = parseBody(ChatQuestionRequest, { ...fields, session_id: fields['session_id'] ?? sessionParam }, { message: 'Invalid question' });
  return { query: request.query.trim(), ...(request.session_id !== undefined ? { sessionId: request.session_id } : {}) };
}
