import { BadRequestError, isPlainObject, parseBody, Satisfies } from '@docflow/service-kit';
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
const INVALID_CREDENTIAL = 'Invalid credential';

function textProblems(key: string, max: number) {
  return (value: unknown): string[] => {
    if (value === undefined || value === null) return [];
    if (typeof value !== 'string') return [`${key}: must be a string`];
    const trimmed = value.trim();
    if (trimmed === '') return [`${key}: must not be empty`];
    return trimmed.length > max ? [`${key}: must be at most ${max} characters`] : [];
  };
}

function descriptionProblems(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string') return ['description: must be a string'];
  return value.length > DESCRIPTION_MAX ? [`description: must be at most ${DESCRIPTION_MAX} characters`] : [];
}

/** The secret map's problems; its values are never echoed back, not even in an error. */
function secretFieldsProblems(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!isPlainObject(value)) return ['fields: must be an object of field names to string values'];
  const entries = Object.entries(value);
  const errors: string[] = [];
  if (entries.length === 0) errors.push('fields: give at least one field');
  if (entries.length > FIELDS_MAX) errors.push(`fields: at most ${FIELDS_MAX} fields`);
  for (const [key, v] of entries.slice(0, FIELDS_MAX)) {
    if (!FIELD_NAME.test(key) || key === '__proto__') errors.push(`fields: "${key.slice(0, 100)}" is not a valid field name (letters, digits, _ . -, starting with a letter or _)`);
    else if (typeof v !== 'string') errors.push(`fields.${key}: must be a string`);
    else if (v.length > FIELD_VALUE_MAX) errors.push(`fields.${key}: must be at most ${FIELD_VALUE_MAX} characters`);
  }
  return errors;
}

/** A field `required` names: its own problems, or that it is missing. */
const required =
  (key: string, problems: (value: unknown) => string[]) =>
  (value: unknown): string[] =>
    value === undefined || value === null ? [`${key}: is required`] : problems(value);

/** POST /credentials: name, provider and fields required; description optional. */
export class CreateCredentialRequest {
  @Satisfies(required('name', textProblems('name', NAME_MAX)))
  name!: string;

  @Satisfies(required('provider', textProblems('provider', PROVIDER_MAX)))
  provider!: string;

  @Satisfies(descriptionProblems)
  description?: string | null;

  @Satisfies(required('fields', secretFieldsProblems))
  fields!: Record<string, string>;
}

/** PUT /credentials/{id}: any of them; null clears only the description. */
export class UpdateCredentialRequest {
  @Satisfies((value) => (value === null ? ['name: must not be empty'] : textProblems('name', NAME_MAX)(value)))
  name?: string;

  @Satisfies((value) => (value === null ? ['provider: must not be empty'] : textProblems('provider', PROVIDER_MAX)(value)))
  provider?: string;

  @Satisfies(descriptionProblems)
  description?: string | null;

  @Satisfies((value) => (value === null ? ['fields: must be an object of field names to string values'] : secretFieldsProblems(value)))
  fields?: Record<string, string>;
}

/** POST /credentials: `{data: {name, provider, description?, fields}}` or the same fields flat, read with parseBody (400 `Invalid credential`). */
export function parseCreateCredential(body: unknown): CredentialInput {
  const request = parseBody(CreateCredentialRequest, requestFields(body), { message: INVALID_CREDENTIAL });
  return { name: request.name.trim(), provider: request.provider.trim(), description: request.description ?? null, fields: { ...request.fields } };
}

/** PUT /credentials/{id}: any of name, provider, description, fields (re-sealed when given); at least one. */
export function parseUpdateCredential(body: unknown): CredentialChanges {
  const request = parseBody(UpdateCredentialRequest, requestFields(body), { message: INVALID_CREDENTIAL });
  const changes: CredentialChanges = {};
  if (request.name !== undefined) changes.name = request.name.trim();
  if (request.provider !== undefined) changes.provider = request.provider.trim();
  if (request.description !== undefined) changes.description = request.description;
  if (request.fields !== undefined) changes.fields = { ...request.fields };
  if (Object.keys(changes).length === 0) throw BadRequestError.withErrors(INVALID_CREDENTIAL, ['give at least one of name, provider, description, fields']);
  return changes;
}
