import { BadRequestError } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import { requestFields } from '../../platform';

export interface CredentialInput {
  name: string;
  provider: string;
  description: string | null;
  fields: Record<string, string>;
}

export type CredentialChanges = Partial<CredentialInput>;

const NAME_MAX = 255;
const PROVIDER_MAX = 100;
const DESCRIPTION_MAX = 10_000;
const FIELDS_MAX = 50;
const FIELD_VALUE_MAX = 10_000;
/** Field names are merged into a node's template inputs, so they are identifiers (and not `__proto__`, which an object cannot keep as a key). */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;

function readText(fields: Record<string, unknown>, key: string, max: number, errors: string[]): string | undefined {
  const value = fields[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    errors.push(`${key}: must be a string`);
    return undefined;
  }
  const trimmed = value.trim();
  if (trimmed === '') errors.push(`${key}: must not be empty`);
  else if (trimmed.length > max) errors.push(`${key}: must be at most ${max} characters`);
  else return trimmed;
  return undefined;
}

function readDescription(fields: Record<string, unknown>, errors: string[]): string | null | undefined {
  const value = fields.description;
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value !== 'string') errors.push('description: must be a string');
  else if (value.length > DESCRIPTION_MAX) errors.push(`description: must be at most ${DESCRIPTION_MAX} characters`);
  else return value;
  return undefined;
}

/** The secret map; its values are never echoed back, not even in an error. */
function readSecretFields(fields: Record<string, unknown>, errors: string[]): Record<string, string> | undefined {
  const value = fields.fields;
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    errors.push('fields: must be an object of field names to string values');
    return undefined;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) errors.push('fields: give at least one field');
  if (entries.length > FIELDS_MAX) errors.push(`fields: at most ${FIELDS_MAX} fields`);
  const out: Record<string, string> = {};
  for (const [key, v] of entries.slice(0, FIELDS_MAX)) {
    if (!FIELD_NAME.test(key) || key === '__proto__') errors.push(`fields: "${key.slice(0, 100)}" is not a valid field name (letters, digits, _ . -, starting with a letter or _)`);
    else if (typeof v !== 'string') errors.push(`fields.${key}: must be a string`);
    else if (v.length > FIELD_VALUE_MAX) errors.push(`fields.${key}: must be at most ${FIELD_VALUE_MAX} characters`);
    else out[key] = v;
  }
  return out;
}

/** POST /credentials: `{data: {name, provider, description?, fields}}` or the same fields flat. */
export function parseCreateCredential(body: unknown): CredentialInput {
  const fields = requestFields(body);
  const errors: string[] = [];
  const name = readText(fields, 'name', NAME_MAX, errors);
  const provider = readText(fields, 'provider', PROVIDER_MAX, errors);
  const description = readDescription(fields, errors);
  const secrets = readSecretFields(fields, errors);
  if (fields.name === undefined || fields.name === null) errors.push('name: is required');
  if (fields.provider === undefined || fields.provider === null) errors.push('provider: is required');
  if (fields.fields === undefined || fields.fields === null) errors.push('fields: is required');
  if (errors.length > 0 || name === undefined || provider === undefined || secrets === undefined) throw BadRequestError.withErrors('Invalid credential', errors);
  return { name, provider, description: description ?? null, fields: secrets };
}

/** PUT /credentials/{id}: any of name, provider, description, fields (re-sealed when given); at least one. */
export function parseUpdateCredential(body: unknown): CredentialChanges {
  const fields = requestFields(body);
  const errors: string[] = [];
  const changes: CredentialChanges = {};
  const name = readText(fields, 'name', NAME_MAX, errors);
  if (name !== undefined) changes.name = name;
  else if (fields.name === null) errors.push('name: must not be empty');
  const provider = readText(fields, 'provider', PROVIDER_MAX, errors);
  if (provider !== undefined) changes.provider = provider;
  else if (fields.provider === null) errors.push('provider: must not be empty');
  const description = readDescription(fields, errors);
  if (description !== undefined) changes.description = description;
  const secrets = readSecretFields(fields, errors);
  if (secrets !== undefined) changes.fields = secrets;
  else if (fields.fields === null) errors.push('fields: must be an object of field names to string values');
  if (errors.length === 0 && Object.keys(changes).length === 0) errors.push('give at least one of name, provider, description, fields');
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid credential', errors);
  return changes;
}
