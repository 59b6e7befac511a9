import { checkEntityType, checkTenantRegex, TENANT_LIMITS } from '@docflow/data-shield';
import { BadRequestError, parseBody, Satisfies } from '@docflow/service-kit';
import { requestFields } from '../platform';
import type { DetectorKind } from './data-shield-detector.entity';
import type { DetectorFields } from './data-shield.repository';

const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$/;
const MAX_PREVIEW_CHARS = 100_000;

type Check = (value: unknown) => string[];

const scoreCheck =
  (field: string): Check =>
  (value) =>
    value === undefined || value === null || (typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1) ? [] : [`${field} must be a number from 0 to 1`];

/** Trimmed, non-empty and unique entries; undefined when the value is not an array of strings. */
function wordsOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.some((w) => typeof w !== 'string')) return undefined;
  return [...new Set((value as string[]).map((w) => w.trim()).filter((w) => w.length > 0))];
}

const stringListCheck =
  (field: string, max: number): Check =>
  (value) => {
    if (value === undefined || value === null) return [];
    const words = wordsOf(value);
    if (words === undefined) return [`${field} must be an array of strings`];
    const problems: string[] = [];
    if (words.length > max) problems.push(`${field} may hold at most ${max} entries`);
    if (words.some((w) => w.length > TENANT_LIMITS.wordLength)) problems.push(`${field} entries must be at most ${TENANT_LIMITS.wordLength} characters`);
    return problems;
  };

/** Each field's check; a field a detector write must name on create is checked even when left out. */
const CHECKS: Record<string, Check> = {
  name: (value) => (typeof value === 'string' && NAME.test(value) ? [] : ['name must be 1 to 100 letters, digits, spaces, dots, dashes or underscores']),
  entity_type: (value) => {
    const check = checkEntityType(value);
    return check.ok ? [] : [`entity_type ${check.reason}`];
  },
  pattern: (value) => {
    const check = typeof value === 'string' ? checkTenantRegex(value) : { ok: false as const, reason: 'must be a string' };
    return check.ok ? [] : [`pattern ${check.reason}`];
  },
  words: (value) => [...stringListCheck('words', TENANT_LIMITS.wordsPerList)(value), ...(wordsOf(value)?.length ? [] : ['words must hold at least one word or phrase'])],
  context_words: stringListCheck('context_words', TENANT_LIMITS.contextWords),
  score: scoreCheck('score'),
  score_threshold: scoreCheck('score_threshold'),
  enabled: (value) => (value === undefined || typeof value === 'boolean' ? [] : ['enabled must be true or false']),
};

const ALLOWED: Record<DetectorKind, readonly string[]> = {
  pattern: ['name', 'entity_type', 'pattern', 'score', 'enabled'],
  word_list: ['name', 'entity_type', 'words', 'score', 'enabled'],
  recognizer: ['name', 'entity_type', 'pattern', 'context_words', 'score', 'score_threshold', 'enabled'],
};
const REQUIRED_ON_CREATE = new Set(['name', 'entity_type', 'pattern', 'words']);

/** The body of a detector write, its fields as sent. */
export type DetectorRequest = Partial<Record<'name' | 'entity_type' | 'pattern' | 'words' | 'context_words' | 'score' | 'score_threshold' | 'enabled', unknown>>;

/**
 * The request class of one kind of detector and one kind of write: its
 * fields (ALLOWED) with their checks (CHECKS) as `@Satisfies` rules; on
 * update every field is optional, on create the REQUIRED_ON_CREATE ones
 * are checked even when left out.
 */
function detectorRequestClass(kind: DetectorKind, create: boolean): new () => DetectorRequest {
  class Request {}
  for (const key of ALLOWED[kind]) {
    const check = CHECKS[key] as Check;
    Satisfies(create && REQUIRED_ON_CREATE.has(key) ? check : (value) => (value === undefined ? [] : check(value)))(Request.prototype, key);
  }
  return Request as new () => DetectorRequest;
}

const REQUEST_CLASSES = {
  create: { pattern: detectorRequestClass('pattern', true), word_list: detectorRequestClass('word_list', true), recognizer: detectorRequestClass('recognizer', true) },
  update: { pattern: detectorRequestClass('pattern', false), word_list: detectorRequestClass('word_list', false), recognizer: detectorRequestClass('recognizer', false) },
};

/** A field that is not one of the kind's is refused first, with the others alike. */
function detectorRequest(kind: DetectorKind, body: unknown, write: 'create' | 'update'): DetectorRequest {
  const label = kind.replace('_', ' ');
  const fields = requestFields(body);
  const unknown = Object.keys(fields).filter((key) => !ALLOWED[kind].includes(key));
  if (unknown.length)
    throw BadRequestError.withErrors(
      `Invalid Data Shield ${label}`,
      unknown.map((key) => `${key} is not a field of a ${label}`),
    );
  return parseBody(REQUEST_CLASSES[write][kind], fields, { message: `Invalid Data Shield ${label}` });
}

/**
 * A new detector: every field of its kind (score, score_threshold and
 * context_words may be left out; enabled defaults to true). A regex that
 * RE2 refuses (backreferences, lookaround, syntax errors, too complex,
 * matching the empty string) is 400 naming why (spec 4.17 rule 8); the
 * values of words are never echoed.
 */
export function parseDetectorCreate(kind: DetectorKind, body: unknown): DetectorFields {
  const r = detectorRequest(kind, body, 'create');
  return {
    name: r.name as string,
    entityType: r.entity_type as string,
    pattern: kind === 'word_list' ? null : (r.pattern as string),
    words: kind === 'word_list' ? (wordsOf(r.words) as string[]) : null,
    contextWords: kind === 'recognizer' ? (wordsOf(r.context_words) ?? null) : null,
    score: (r.score as number | null | undefined) ?? null,
    scoreThreshold: kind === 'recognizer' ? ((r.score_threshold as number | null | undefined) ?? null) : null,
    enabled: (r.enabled as boolean | undefined) ?? true,
  };
}

/** A detector update: the fields given replace the stored ones (null clears a score or the context words). */
export function parseDetectorUpdate(kind: DetectorKind, body: unknown): Partial<DetectorFields> {
  const r = detectorRequest(kind, body, 'update');
  const out: Partial<DetectorFields> = {};
  if (r.name !== undefined) out.name = r.name as string;
  if (r.entity_type !== undefined) out.entityType = r.entity_type as string;
  if (r.pattern !== undefined) out.pattern = r.pattern as string;
  if (r.words !== undefined) out.words = wordsOf(r.words) as string[];
  if (r.context_words !== undefined) out.contextWords = wordsOf(r.context_words) ?? null;
  if (r.score !== undefined) out.score = r.score as number | null;
  if (r.score_threshold !== undefined) out.scoreThreshold = r.score_threshold as number | null;
  if (r.enabled !== undefined) out.enabled = r.enabled as boolean;
  return out;
}

const entityTypesProblems =
  (normalise: (t: string) => string): Check =>
  (value) =>
    value === undefined || value === null || (Array.isArray(value) && value.every((t) => typeof t === 'string' && checkEntityType(normalise(t)).ok))
      ? []
      : ['entity_types must be an array of entity type names such as EMAIL or PERSON'];

/** POST /data-shield/preview. */
export class PreviewBody {
  @Satisfies((value) =>
    typeof value !== 'string' || value.length === 0 ? ['text must be a non-empty string'] : value.length > MAX_PREVIEW_CHARS ? [`text must be at most ${MAX_PREVIEW_CHARS} characters`] : [],
  )
  text!: string;

  @Satisfies(entityTypesProblems((t) => t.toUpperCase()))
  entity_types?: string[] | null;
}

export interface PreviewRequest {
  text: string;
  entityTypes?: string[];
}

/** Body of POST /data-shield/preview: `text` and optional `entity_types` (wrapped in `data` or flat), read with parseBody (400 `Invalid preview request`). */
export function parsePreview(body: unknown): PreviewRequest {
  const request = parseBody(PreviewBody, requestFields(body), { message: 'Invalid preview request' });
  const entityTypes = (request.entity_types ?? []).map((t) => t.toUpperCase());
  return { text: request.text, ...(entityTypes.length ? { entityTypes } : {}) };
}

/** PUT /data-shield/{agents|chatbots}/{id}: whether the subject shields its model calls, and which entity types. */
export class SubjectSettingBody {
  @Satisfies((value) => (typeof value === 'boolean' ? [] : ['enabled must be true or false']))
  enabled!: boolean;

  @Satisfies(entityTypesProblems((t) => t))
  entity_types?: string[] | null;
}

/** `{enabled, entity_types?}` (wrapped or flat), read with parseBody (400 `Invalid Data Shield setting`); no types: all. */
export function parseSubjectSetting(body: unknown): { enabled: boolean; entityTypes: string[] | null } {
  const request = parseBody(SubjectSettingBody, requestFields(body), { message: 'Invalid Data Shield setting' });
  return { enabled: request.enabled, entityTypes: request.entity_types?.length ? request.entity_types : null };
}
