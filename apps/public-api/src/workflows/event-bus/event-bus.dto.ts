import { validateSubscriptionRule } from '@docflow/cloud-drive';
import { parseEmailSourceSettings, type EmailSourceSettings } from '@docflow/email-source';
import { BadRequestError, unstorableMessage, unstorablePath } from '@docflow/service-kit';
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

function refuse(errors: string[]): never {
  throw BadRequestError.withErrors('Invalid request body', errors);
}

function checkStorable(fields: Record<string, unknown>): void {
  const bad = unstorablePath(fields);
  if (bad !== undefined) refuse([unstorableMessage(bad)]);
}

function optionalText(fields: Record<string, unknown>, key: string, max: number, errors: string[]): string | null {
  const value = fields[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
    errors.push(`${key} must be a non-empty string of at most ${max} characters`);
    return null;
  }
  return value.trim();
}

function relationId(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return idParam(String(value));
  if (typeof value === 'string') return idParam(value);
  if (isPlainObject(value)) return relationId(value['id']);
  return undefined;
}

/**
 * A new source, from either route (spec 4.10): `POST /event-bus/sources`
 * with `folder_id`, `folder_name` (email: `email_address`, `label_ids`), or
 * `POST /event-sources` with `drive_item_id`, `drive_item_type`. E-mail
 * sources name the owner's IMAP credential (`credential_id`). Only folders
 * can be watched.
 */
export function parseCreateSource(fields: Record<string, unknown>): CreateSourceInput {
  checkStorable(fields);
  const errors: string[] = [];
  const name = optionalText(fields, 'name', NAME_MAX, errors);
  const type = fields['source_type'];
  if (type === 'email') {
    const parsed = parseEmailSourceSettings({ email_address: fields['email_address'], label_ids: fields['label_ids'] });
    const credentialId = relationId(fields['credential_id']);
    if (credentialId === undefined) errors.push('credential_id must name your IMAP credential (fields host, port, user, password, optional secure)');
    if ('errors' in parsed) errors.push(...parsed.errors);
    if (errors.length || 'errors' in parsed || credentialId === undefined) refuse(errors);
    return { kind: 'email', name, settings: parsed.settings, credentialId };
  }
  if (type !== 'cloud_drive')
    refuse([type === 'webhook' || type === 'slack' ? `source_type ${type} is not available: only cloud_drive (and email, staging) are live` : 'source_type must be cloud_drive or email']);
  const itemType = fields['drive_item_type'];
  if (itemType !== undefined && itemType !== null && itemType !== 'folder') errors.push('drive_item_type must be folder: a source watches a folder');
  const folderKey = fields['folder_id'] !== undefined ? 'folder_id' : 'drive_item_id';
  const folderId = fields[folderKey];
  if (typeof folderId !== 'string' || folderId.length > ITEM_MAX) errors.push(`${folderKey} must be a string of at most ${ITEM_MAX} characters`);
  const folderName = optionalText(fields, fields['folder_name'] !== undefined ? 'folder_name' : 'drive_item_name', NAME_MAX, errors);
  if (errors.length || typeof folderId !== 'string') refuse(errors);
  return { kind: 'cloud_drive', name, folderId, folderName };
}

function parseRule(fields: Record<string, unknown>, errors: string[]): Partial<SubscriptionSettings> {
  const out: Partial<SubscriptionSettings> = {};
  errors.push(...validateSubscriptionRule({ event_types: fields['event_types'], filter: fields['filter'] }));
  if (fields['event_types'] !== undefined && fields['event_types'] !== null) out.eventTypes = fields['event_types'] as string[];
  if (fields['filter'] !== undefined && fields['filter'] !== null) out.filter = fields['filter'] as Record<string, unknown>;
  const mapping = fields['input_mapping'];
  if (mapping !== undefined && mapping !== null) {
    if (!isPlainObject(mapping)) errors.push('input_mapping must be an object');
    else if (JSON.stringify(mapping).length > MAPPING_MAX_BYTES) errors.push(`input_mapping must be at most ${MAPPING_MAX_BYTES} bytes of JSON`);
    else out.inputMapping = mapping;
  }
  const active = fields['is_active'];
  if (active !== undefined) {
    if (typeof active !== 'boolean') errors.push('is_active must be a boolean');
    else out.isActive = active;
  }
  const name = optionalText(fields, 'name', NAME_MAX, errors);
  if (name !== null) out.name = name;
  return out;
}

/** `POST /event-subscriptions` (spec 2.17): `event_source` and `activity` are required relations. */
export function parseCreateSubscription(fields: Record<string, unknown>): CreateSubscriptionInput {
  checkStorable(fields);
  const errors: string[] = [];
  const sourceId = relationId(fields['event_source']);
  const activityId = relationId(fields['activity']);
  if (sourceId === undefined) errors.push('event_source is required (the id of one of your event sources)');
  if (activityId === undefined) errors.push('activity is required (the id of one of your activities)');
  const rule = parseRule(fields, errors);
  if (errors.length || sourceId === undefined || activityId === undefined) refuse(errors);
  return {
    sourceId,
    activityId,
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
  const errors: string[] = [];
  if (fields['event_source'] !== undefined || fields['activity'] !== undefined) errors.push('event_source and activity cannot change: create another subscription');
  const rule = parseRule(fields, errors);
  if (errors.length) refuse(errors);
  if (rule.eventTypes && rule.eventTypes.length === 0) rule.eventTypes = ['*'];
  return rule;
}

/** `limit` (1 to 100, default 25), `offset` (default 0) and `source_id` of GET /event-bus/logs. */
export function parseLogQuery(query: Record<string, unknown>): { limit: number; offset: number; sourceId?: number } {
  const errors: string[] = [];
  const int = (key: string, min: number, max: number, fallback: number): number => {
    const raw = query[key];
    if (raw === undefined) return fallback;
    if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      errors.push(`${key} must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  const limit = int('limit', 1, 100, 25);
  const offset = int('offset', 0, 1_000_000, 0);
  const rawSource = query['source_id'];
  const sourceId = rawSource === undefined ? undefined : typeof rawSource === 'string' ? idParam(rawSource) : undefined;
  if (rawSource !== undefined && sourceId === undefined) errors.push('source_id must be a positive integer');
  if (errors.length) throw BadRequestError.withErrors('Invalid query', errors);
  return sourceId === undefined ? { limit, offset } : { limit, offset, sourceId };
}
