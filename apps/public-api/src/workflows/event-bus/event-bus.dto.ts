import { validateSubscriptionRule } from '@docflow/cloud-drive';
import { parseEmailSourceSettings, type EmailSourceSettings } from '@docflow/email-source';
import { BadRequestError, parseBody, Satisfies, unstorableMessage, unstorablePath } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import { idParam } from '../../platform';
import type { SubscriptionSettings } from './event-subscriptions.repository';

const NAME_MAX = 255;
const ITEM_MAX = 1024;
const MAPPING_MAX_BYTES = 16 * 1024;

export type CreateSourceInput =
  { kind: 'cloud_drive'; name: string | null; folderId: string; folderName: string | null } | { kind: 'email'; name: string | null; settings: EmailSourceSettings; credentialId: number };

export interface CreateSubscriptionInput extends SubscriptionSettings {
  sourceId: number;
  activityId: number;
}

const INVALID_BODY = 'Invalid request body';

/** A body with text PostgreSQL cannot store is refused first, naming only that value (as before the classes). */
function checkStorable(fields: Record<string, unknown>): void {
  const bad = unstorablePath(fields);
  if (bad !== undefined) throw BadRequestError.withErrors(INVALID_BODY, [unstorableMessage(bad)]);
}

type Problems = (value: unknown, object: Record<string, unknown>) => string[];

const optionalTextProblems =
  (key: string, max: number): Problems =>
  (value) =>
    value === undefined || value === null || (typeof value === 'string' && value.trim() !== '' && value.length <= max) ? [] : [`${key} must be a non-empty string of at most ${max} characters`];

function optionalText(value: string | null | undefined): string | null {
  return typeof value === 'string' ? value.trim() : null;
}

function relationId(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return idParam(String(value));
  if (typeof value === 'string') return idParam(value);
  if (isPlainObject(value)) return relationId(value['id']);
  return undefined;
}

const relationProblems =
  (message: string): Problems =>
  (value) =>
    relationId(value) === undefined ? [message] : [];

/** `source_type`, read first: an unknown type is refused alone. */
export class SourceTypeRequest {
  @Satisfies((value) =>
    value === 'cloud_drive' || value === 'email'
      ? []
      : [value === 'webhook' || value === 'slack' ? `source_type ${value} is not available: only cloud_drive (and email, staging) are live` : 'source_type must be cloud_drive or email'],
  )
  source_type!: 'cloud_drive' | 'email';
}

/** The problems parseEmailSourceSettings finds in one of its two fields. */
const emailSettingProblems =
  (key: 'email_address' | 'label_ids'): Problems =>
  (_value, object) => {
    const parsed = parseEmailSourceSettings({ email_address: object['email_address'], label_ids: object['label_ids'] });
    return 'errors' in parsed ? parsed.errors.filter((e) => e.startsWith(key)) : [];
  };

/** An e-mail source: the owner's IMAP credential, the address and mailboxes. */
export class EmailSourceRequest {
  @Satisfies(optionalTextProblems('name', NAME_MAX))
  name?: string | null;

  @Satisfies(relationProblems('credential_id must name your IMAP credential (fields host, port, user, password, optional secure)'))
  credential_id!: unknown;

  @Satisfies(emailSettingProblems('email_address'))
  email_address!: string;

  @Satisfies(emailSettingProblems('label_ids'))
  label_ids?: string[] | null;
}

const folderIdProblems =
  (key: 'folder_id' | 'drive_item_id'): Problems =>
  (value, object) => {
    if ((object['folder_id'] !== undefined) !== (key === 'folder_id')) return [];
    return typeof value === 'string' && value.length <= ITEM_MAX ? [] : [`${key} must be a string of at most ${ITEM_MAX} characters`];
  };

const folderNameProblems =
  (key: 'folder_name' | 'drive_item_name'): Problems =>
  (value, object) =>
    (object['folder_name'] !== undefined) !== (key === 'folder_name') ? [] : optionalTextProblems(key, NAME_MAX)(value, object);

/** A drive folder: `folder_id`/`folder_name` (4.10's event-bus route) or `drive_item_id`/`drive_item_name` (2.16's). */
export class DriveSourceRequest {
  @Satisfies(optionalTextProblems('name', NAME_MAX))
  name?: string | null;

  @Satisfies((value) => (value === undefined || value === null || value === 'folder' ? [] : ['drive_item_type must be folder: a source watches a folder']))
  drive_item_type?: 'folder' | null;

  @Satisfies(folderIdProblems('folder_id'))
  folder_id?: string;

  @Satisfies(folderIdProblems('drive_item_id'))
  drive_item_id?: string;

  @Satisfies(folderNameProblems('folder_name'))
  folder_name?: string | null;

  @Satisfies(folderNameProblems('drive_item_name'))
  drive_item_name?: string | null;
}

/**
 * A new source, from either route (spec 4.10): `POST /event-bus/sources`
 * with `folder_id`, `folder_name` (email: `email_address`, `label_ids`), or
 * `POST /event-sources` with `drive_item_id`, `drive_item_type`. E-mail
 * sources name the owner's IMAP credential (`credential_id`). Only folders
 * can be watched. Read with parseBody (400 `Invalid request body`).
 */
export function parseCreateSource(fields: Record<string, unknown>): CreateSourceInput {
  checkStorable(fields);
  const { source_type } = parseBody(SourceTypeRequest, fields, { message: INVALID_BODY });
  if (source_type === 'email') {
    const request = parseBody(EmailSourceRequest, fields, { message: INVALID_BODY });
    const parsed = parseEmailSourceSettings({ email_address: request.email_address, label_ids: request.label_ids });
    if ('errors' in parsed) throw BadRequestError.withErrors(INVALID_BODY, parsed.errors); // not reached: EmailSourceRequest ran the same check
    return { kind: 'email', name: optionalText(request.name), settings: parsed.settings, credentialId: relationId(request.credential_id) as number };
  }
  const request = parseBody(DriveSourceRequest, fields, { message: INVALID_BODY });
  const folderId = request.folder_id ?? request.drive_item_id;
  return { kind: 'cloud_drive', name: optionalText(request.name), folderId: folderId as string, folderName: optionalText(request.folder_name ?? request.drive_item_name) };
}

/** The rule and settings of a subscription, as written by create and update. */
export class SubscriptionRuleRequest {
  @Satisfies((value) => validateSubscriptionRule({ event_types: value }))
  event_types?: string[] | null;

  @Satisfies((value) => validateSubscriptionRule({ filter: value }))
  filter?: Record<string, unknown> | null;

  @Satisfies((value) => {
    if (value === undefined || value === null) return [];
    if (!isPlainObject(value)) return ['input_mapping must be an object'];
    return JSON.stringify(value).length > MAPPING_MAX_BYTES ? [`input_mapping must be at most ${MAPPING_MAX_BYTES} bytes of JSON`] : [];
  })
  input_mapping?: Record<string, unknown> | null;

  @Satisfies((value) => (value === undefined || typeof value === 'boolean' ? [] : ['is_active must be a boolean']))
  is_active?: boolean;

  @Satisfies(optionalTextProblems('name', NAME_MAX))
  name?: string | null;
}

/** `POST /event-subscriptions`: the rule, and the source and activity it binds. */
export class CreateSubscriptionRequest extends SubscriptionRuleRequest {
  @Satisfies(relationProblems('event_source is required (the id of one of your event sources)'))
  event_source!: unknown;

  @Satisfies(relationProblems('activity is required (the id of one of your activities)'))
  activity!: unknown;
}

/** `PUT /event-subscriptions/{id}`: the rule; the source and activity cannot change. */
export class UpdateSubscriptionRequest extends SubscriptionRuleRequest {
  @Satisfies((value, object) => (value !== undefined || object['activity'] !== undefined ? ['event_source and activity cannot change: create another subscription'] : []))
  event_source?: unknown;
}

function toRule(request: SubscriptionRuleRequest): Partial<SubscriptionSettings> {
  const out: Partial<SubscriptionSettings> = {};
  if (request.event_types !== undefined && request.event_types !== null) out.eventTypes = request.event_types;
  if (request.filter !== undefined && request.filter !== null) out.filter = request.filter;
  if (request.input_mapping !== undefined && request.input_mapping !== null) out.inputMapping = request.input_mapping;
  if (request.is_active !== undefined) out.isActive = request.is_active;
  const name = optionalText(request.name);
  if (name !== null) out.name = name;
  return out;
}

/** `POST /event-subscriptions` (spec 2.17): `event_source` and `activity` are required relations; read with parseBody (400 `Invalid request body`). */
export function parseCreateSubscription(fields: Record<string, unknown>): CreateSubscriptionInput {
  checkStorable(fields);
  const request = parseBody(CreateSubscriptionRequest, fields, { message: INVALID_BODY });
  const sourceId = relationId(request.event_source) as number;
  const rule = toRule(request);
  return {
    sourceId,
    activityId: relationId(request.activity) as number,
    name: rule.name ?? `Subscription to source ${sourceId}`,
    eventTypes: rule.eventTypes && rule.eventTypes.length > 0 ? rule.eventTypes : ['*'],
    filter: rule.filter ?? {},
    inputMapping: rule.inputMapping ?? {},
    isActive: rule.isActive ?? true,
  };
}

/** `PUT /event-subscriptions/{id}`: the settings given; source and activity stay. */
export function parseUpdateSubscription(fields: Record<string, unknown>): Partial<SubscriptionSettings> {
  checkStorable(fields);
  const rule = toRule(parseBody(UpdateSubscriptionRequest, fields, { message: INVALID_BODY }));
  if (rule.eventTypes && rule.eventTypes.length === 0) rule.eventTypes = ['*'];
  return rule;
}

const queryIntProblems =
  (key: string, min: number, max: number): Problems =>
  (value) =>
    value === undefined || (typeof value === 'string' && /^\d{1,9}$/.test(value) && Number(value) >= min && Number(value) <= max) ? [] : [`${key} must be an integer from ${min} to ${max}`];

/** The query of GET /event-bus/logs. */
export class LogQueryRequest {
  @Satisfies(queryIntProblems('limit', 1, 100))
  limit?: string;

  @Satisfies(queryIntProblems('offset', 0, 1_000_000))
  offset?: string;

  @Satisfies((value) => (value === undefined || (typeof value === 'string' && idParam(value) !== undefined) ? [] : ['source_id must be a positive integer']))
  source_id?: string;
}

/** `limit` (1 to 100, default 25), `offset` (default 0) and `source_id` of GET /event-bus/logs, read with parseBody (400 `Invalid query`). */
export function parseLogQuery(query: Record<string, unknown>): { limit: number; offset: number; sourceId?: number } {
  const q = parseBody(LogQueryRequest, query, { message: 'Invalid query' });
  const page = { limit: q.limit === undefined ? 25 : Number(q.limit), offset: q.offset === undefined ? 0 : Number(q.offset) };
  return q.source_id === undefined ? page : { ...page, sourceId: idParam(q.source_id) as number };
}
