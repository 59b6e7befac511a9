import { checkEntityType, checkTenantRegex, TENANT_LIMITS } from '@docflow/data-shield';
import { BadRequestError } from '@docflow/service-kit';
import { requestFields } from '../platform';
import type { DetectorKind } from './data-shield-detector.entity';
import type { DetectorFields } from './data-shield.repository';

const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.-]{0,99}$/;
const MAX_PREVIEW_CHARS = 100_000;

class Problems {
  readonly list: string[] = [];
  add(problem: string): void {
    this.list.push(problem);
  }
  throwIfAny(message: string): void {
    if (this.list.length) throw BadRequestError.withErrors(message, this.list);
  }
}

function score(value: unknown, field: string, problems: Problems): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    problems.add(`${field} must be a number from 0 to 1`);
    return null;
  }
  return value;
}

function stringList(value: unknown, field: string, max: number, problems: Problems): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some((w) => typeof w !== 'string')) {
    problems.add(`${field} must be an array of strings`);
    return null;
  }
  const words = [...new Set((value as string[]).map((w) => w.trim()).filter((w) => w.length > 0))];
  if (words.length > max) problems.add(`${field} may hold at most ${max} entries`);
  if (words.some((w) => w.length > TENANT_LIMITS.wordLength)) problems.add(`${field} entries must be at most ${TENANT_LIMITS.wordLength} characters`);
  return words;
}

const ALLOWED: Record<DetectorKind, readonly string[]> = {
  pattern: ['name', 'entity_type', 'pattern', 'score', 'enabled'],
  word_list: ['name', 'entity_type', 'words', 'score', 'enabled'],
  recognizer: ['name', 'entity_type', 'pattern', 'context_words', 'score', 'score_threshold', 'enabled'],
};

/**
 * A detector write: every field on create; on update the given fields
 * replace the stored ones. A regex that RE2 refuses (backreferences,
 * lookaround, syntax errors, too complex, matching the empty string) is 400
 * naming why (spec 4.17 rule 8); the values of words are never echoed.
 */
export function parseDetector(kind: DetectorKind, body: unknown, current?: DetectorFields): DetectorFields {
  const f = requestFields(body);
  const problems = new Problems();
  for (const key of Object.keys(f)) if (!ALLOWED[kind].includes(key)) problems.add(`${key} is not a field of a ${kind.replace('_', ' ')}`);
  const has = (k: string) => f[k] !== undefined;
  const name = has('name') ? f['name'] : current?.name;
  if (typeof name !== 'string' || !NAME.test(name)) problems.add('name must be 1 to 100 letters, digits, spaces, dots, dashes or underscores');
  const entityType = has('entity_type') ? f['entity_type'] : current?.entityType;
  const typeCheck = checkEntityType(entityType);
  if (!typeCheck.ok) problems.add(`entity_type ${typeCheck.reason}`);
  let pattern: string | null = null;
  if (kind !== 'word_list') {
    const p = has('pattern') ? f['pattern'] : current?.pattern;
    const check = typeof p === 'string' ? checkTenantRegex(p) : { ok: false as const, reason: 'must be a string' };
    if (!check.ok) problems.add(`pattern ${check.reason}`);
    else pattern = p as string;
  }
  let words: string[] | null = null;
  if (kind === 'word_list') {
    words = has('words') ? stringList(f['words'], 'words', TENANT_LIMITS.wordsPerList, problems) : (current?.words ?? null);
    if (!words || words.length === 0) problems.add('words must hold at least one word or phrase');
  }
  const contextWords = kind === 'recognizer' ? (has('context_words') ? stringList(f['context_words'], 'context_words', TENANT_LIMITS.contextWords, problems) : (current?.contextWords ?? null)) : null;
  const s = has('score') ? score(f['score'], 'score', problems) : (current?.score ?? null);
  const threshold = kind === 'recognizer' ? (has('score_threshold') ? score(f['score_threshold'], 'score_threshold', problems) : (current?.scoreThreshold ?? null)) : null;
  const enabled = has('enabled') ? f['enabled'] : (current?.enabled ?? true);
  if (typeof enabled !== 'boolean') problems.add('enabled must be true or false');
  problems.throwIfAny(`Invalid Data Shield ${kind.replace('_', ' ')}`);
  return { name: name as string, entityType: entityType as string, pattern, words, contextWords, score: s, scoreThreshold: threshold, enabled: enabled as boolean };
}

export interface PreviewRequest {
  text: string;
  entityTypes?: string[];
}

/** Body of POST /data-shield/preview: `text` and optional `entity_types` (wrapped in `data` or flat). */
export function parsePreview(body: unknown): PreviewRequest {
  const f = requestFields(body);
  const problems = new Problems();
  const text = f['text'];
  if (typeof text !== 'string' || text.length === 0) problems.add('text must be a non-empty string');
  else if (text.length > MAX_PREVIEW_CHARS) problems.add(`text must be at most ${MAX_PREVIEW_CHARS} characters`);
  let entityTypes: string[] | undefined;
  const types = f['entity_types'];
  if (types !== undefined && types !== null) {
    if (!Array.isArray(types) || types.some((t) => typeof t !== 'string' || !checkEntityType(t.toUpperCase()).ok))
      problems.add('entity_types must be an array of entity type names such as EMAIL or PERSON');
    else entityTypes = (types as string[]).map((t) => t.toUpperCase());
  }
  problems.throwIfAny('Invalid preview request');
  return { text: text as string, ...(entityTypes?.length ? { entityTypes } : {}) };
}
