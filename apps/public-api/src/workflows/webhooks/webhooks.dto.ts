import { BadRequestError, parseBody, Satisfies } from '@docflow/service-kit';
import { ACCEPTED_MIME_TYPES, normaliseMimeType, type AcceptedMimeType } from '@docflow/text-extraction';
import { isPlainObject } from '@docflow/workflow';
import { requestFields } from '../../platform';
import { allowedOrigins, allowedOriginsProblems } from '../../platform';

/** Spec 8: 1 to 50; 10 (the developer guide's default; the schema description says 20). */
export const DEFAULT_MAX_FILE_SIZE_MB = 10;
const NAME_MAX = 255;
const EVENT_TYPE_MAX = 100;
const INVALID_WEBHOOK = 'Invalid webhook';

/** The settings of a webhook a client may write. */
export interface WebhookSettings {
  name?: string;
  active?: boolean;
  eventType?: string | null;
  acceptFiles?: boolean;
  maxFileSizeMb?: number;
  allowedMimeTypes?: AcceptedMimeType[];
  autoEnableRag?: boolean;
  allowedOrigins?: string[];
}

export interface CreateWebhookInput extends WebhookSettings {
  activityId: number;
}

function activityIdOf(value: unknown): number | undefined {
  const raw = isPlainObject(value) ? value['id'] : value;
  const id = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  return typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= 2_147_483_647 ? id : undefined;
}

function readSettings(fields: Record<string, unknown>, errors: string[]): WebhookSettings {
  const out: WebhookSettings = {};
  const { name, active, event_type, accept_files, max_file_size_mb, allowed_mime_types, auto_enable_rag, allowed_origins } = fields;
  if (name !== undefined) {
    if (typeof name !== 'string' || name.trim() === '') errors.push('name: must be a non-empty string');
    else if (name.trim().length > NAME_MAX) errors.push(`name: must be at most ${NAME_MAX} characters`);
    else out.name = name.trim();
  }
  for (const [key, value, set] of [
    ['active', active, (v: boolean) => (out.active = v)],
    ['accept_files', accept_files, (v: boolean) => (out.acceptFiles = v)],
    ['auto_enable_rag', auto_enable_rag, (v: boolean) => (out.autoEnableRag = v)],
  ] as const) {
    if (value === undefined) continue;
    if (typeof value !== 'boolean') errors.push(`${key}: must be true or false`);
    else set(value);
  }
  if (event_type !== undefined) {
    if (event_type === null || (typeof event_type === 'string' && event_type.trim() === '')) out.eventType = null;
    else if (typeof event_type !== 'string') errors.push('event_type: must be a string');
    else if (event_type.trim().length > EVENT_TYPE_MAX) errors.push(`event_type: must be at most ${EVENT_TYPE_MAX} characters`);
    else out.eventType = event_type.trim();
  }
  if (max_file_size_mb !== undefined) {
    if (typeof max_file_size_mb !== 'number' || !Number.isInteger(max_file_size_mb) || max_file_size_mb < 1 || max_file_size_mb > 50) {
      errors.push('max_file_size_mb: must be an integer from 1 to 50');
    } else out.maxFileSizeMb = max_file_size_mb;
  }
  if (allowed_mime_types !== undefined) {
    if (!Array.isArray(allowed_mime_types) || allowed_mime_types.length === 0) errors.push('allowed_mime_types: must be a non-empty array of MIME types');
    else {
      const types: AcceptedMimeType[] = [];
      for (const t of allowed_mime_types) {
        const mime = typeof t === 'string' ? normaliseMimeType(t) : undefined;
        if (mime === undefined) errors.push(`allowed_mime_types: ${JSON.stringify(t)} is not one of ${ACCEPTED_MIME_TYPES.join(', ')}`);
        else if (!types.includes(mime)) types.push(mime);
      }
      out.allowedMimeTypes = types;
    }
  }
  if (allowed_origins !== undefined) {
    const problems = allowedOriginsProblems(allowed_origins);
    errors.push(...problems);
    if (problems.length === 0) out.allowedOrigins = allowedOrigins(allowed_origins as string[]);
  }
  return out;
}

/** The problems readSettings finds in one field. */
const settingProblems =
  (key: string) =>
  (value: unknown): string[] => {
    const errors: string[] = [];
    readSettings({ [key]: value }, errors);
    return errors;
  };

/** PUT /webhooks/{id}: any of the settings, each checked as readSettings reads it. */
export class UpdateWebhookRequest {
  @Satisfies(settingProblems('name'))
  name?: unknown;

  @Satisfies(settingProblems('active'))
  active?: unknown;

  @Satisfies(settingProblems('accept_files'))
  accept_files?: unknown;

  @Satisfies(settingProblems('auto_enable_rag'))
  auto_enable_rag?: unknown;

  @Satisfies(settingProblems('event_type'))
  event_type?: unknown;

  @Satisfies(settingProblems('max_file_size_mb'))
  max_file_size_mb?: unknown;

  @Satisfies(settingProblems('allowed_mime_types'))
  allowed_mime_types?: unknown;

  @Satisfies(settingProblems('allowed_origins'))
  allowed_origins?: unknown;
}

/** POST /webhooks: an activity (id, numeric string or `{id}`, also as `activity_id`), then the settings as on update. */
export class CreateWebhookRequest extends UpdateWebhookRequest {
  @Satisfies((value) => (activityIdOf(value) === undefined ? ['activity: is required and must be an activity id'] : []))
  activity!: unknown;
}

/** POST /webhooks: `{activity (required), name, event_type, max_file_size_mb, allowed_mime_types, auto_enable_rag, accept_files, allowed_origins, active}`, wrapped or flat, read with parseBody (400 `Invalid webhook`). */
export function parseCreateWebhook(body: unknown): CreateWebhookInput {
  const fields = requestFields(body);
  const request = parseBody(CreateWebhookRequest, { ...fields, activity: fields['activity'] ?? fields['activity_id'] }, { message: INVALID_WEBHOOK });
  return { activityId: activityIdOf(request.activity) as number, ...readSettings(fields, []) };
}

/** PUT /webhooks/{id}: any of the settings; at least one. */
export function parseUpdateWebhook(body: unknown): WebhookSettings {
  const fields = requestFields(body);
  parseBody(UpdateWebhookRequest, fields, { message: INVALID_WEBHOOK });
  const settings = readSettings(fields, []);
  if (Object.keys(settings).length === 0)
    throw BadRequestError.withErrors(INVALID_WEBHOOK, ['give at least one of name, active, event_type, accept_files, max_file_size_mb, allowed_mime_types, auto_enable_rag, allowed_origins']);
  return settings;
}
