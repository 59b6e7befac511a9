import { BadRequestError, isPlainObject } from '@docflow/service-kit';

/** The non-file fields of POST /documents/upload, validated. */
export interface UploadFields {
  /** Undefined: each file's (sanitised) filename is its title. */
  title?: string;
  description: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  global: boolean;
  globalKey?: string;
}

export const TITLE_MAX = 255;
export const DESCRIPTION_MAX = 10_000;
export const TAGS_MAX = 50;
export const TAG_MAX = 100;
export const METADATA_MAX_BYTES = 64 * 1024;
export const GLOBAL_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function parseJson(text: string, field: string, errors: string[]): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    errors.push(`${field}: must be valid JSON`);
    return undefined;
  }
}

export function checkTitle(value: unknown, errors: string[], field = 'title'): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    errors.push(`${field}: must be a string`);
    return undefined;
  }
  const title = value.trim();
  if (title.length > TITLE_MAX) errors.push(`${field}: must be at most ${TITLE_MAX} characters`);
  return title === '' ? undefined : title;
}

export function checkDescription(value: unknown, errors: string[], field = 'description'): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value !== 'string') {
    errors.push(`${field}: must be a string`);
    return undefined;
  }
  if (value.length > DESCRIPTION_MAX) errors.push(`${field}: must be at most ${DESCRIPTION_MAX} characters`);
  return value;
}

/** An array of strings, a JSON array string, or a comma-separated string. */
export function checkTags(value: unknown, errors: string[], field = 'tags'): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  let list: unknown = value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return [];
    list = text.startsWith('[') ? parseJson(text, field, errors) : text.split(',');
    if (list === undefined) return undefined;
  }
  if (!Array.isArray(list) || !list.every((t) => typeof t === 'string')) {
    errors.push(`${field}: must be an array of strings (a JSON array in a form field)`);
    return undefined;
  }
  const tags = [...new Set((list as string[]).map((t) => t.trim()).filter((t) => t !== ''))];
  if (tags.length > TAGS_MAX) errors.push(`${field}: at most ${TAGS_MAX} tags`);
  if (tags.some((t) => t.length > TAG_MAX)) errors.push(`${field}: each tag must be at most ${TAG_MAX} characters`);
  return tags;
}

/** An object, or a JSON object string. */
export function checkMetadata(value: unknown, errors: string[], field = 'metadata'): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    parsed = parseJson(value, field, errors);
    if (parsed === undefined) return undefined;
  }
  if (!isPlainObject(parsed)) {
    errors.push(`${field}: must be a JSON object`);
    return undefined;
  }
  if (Buffer.byteLength(JSON.stringify(parsed)) > METADATA_MAX_BYTES) errors.push(`${field}: must be at most ${METADATA_MAX_BYTES} bytes of JSON`);
  return parsed;
}

function checkBoolean(value: unknown, field: string, errors: string[]): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
  }
  errors.push(`${field}: must be true or false`);
  return undefined;
}

function checkGlobalKey(value: unknown, errors: string[]): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !GLOBAL_KEY.test(value)) {
    errors.push('globalKey: must be 1-128 letters, digits, dots, dashes or underscores, starting with a letter or digit');
    return undefined;
  }
  return value;
}

function single(value: unknown, field: string, errors: string[]): unknown {
  if (Array.isArray(value)) {
    errors.push(`${field}: given more than once`);
    return undefined;
  }
  return value;
}

/**
 * Reads the form fields of both upload variants: plain fields next to `file`
 * (title, description, tags as a JSON array string, global, globalKey,
 * metadata as a JSON string), and a `data` field holding the same as one JSON
 * object (next to `files`). A value in `data` wins over a plain field.
 * Throws a 400 listing every problem.
 */
export function parseUploadFields(body: unknown): UploadFields {
  const form: Record<string, unknown> = isPlainObject(body) ? body : {};
  const errors: string[] = [];
  let data: Record<string, unknown> = {};
  const rawData = single(form.data, 'data', errors);
  if (rawData !== undefined && rawData !== '') {
    const parsed = typeof rawData === 'string' ? parseJson(rawData, 'data', errors) : rawData;
    if (isPlainObject(parsed)) data = parsed;
    else if (parsed !== undefined) errors.push('data: must be a JSON object');
  }
  const pick = (name: string): unknown => (data[name] !== undefined ? data[name] : single(form[name], name, errors));
  const title = checkTitle(pick('title'), errors);
  const description = checkDescription(pick('description'), errors);
  const tags = checkTags(pick('tags'), errors);
  const metadata = checkMetadata(pick('metadata'), errors);
  const global = checkBoolean(pick('global'), 'global', errors) ?? false;
  const globalKey = checkGlobalKey(pick('globalKey') ?? pick('global_key'), errors);
  if (globalKey !== undefined && !global) errors.push('globalKey: only allowed with global=true');
  if (errors.length > 0) throw BadRequestError.withErrors('Invalid upload fields', errors);
  return {
    ...(title !== undefined ? { title } : {}),
    description: description ?? null,
    tags: tags ?? [],
    metadata: metadata ?? {},
    global,
    ...(globalKey !== undefined ? { globalKey } : {}),
  };
}
