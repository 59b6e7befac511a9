import { isPlainObject } from '@docflow/service-kit';
import { FORBIDDEN_KEYS } from './types';

/**
 * `{{variable}}` templates in node configs (spec 2.6).
 *
 * - Paths: `{{name}}`, `{{node_id.field}}`, `{{n1.items.0.id}}`, `{{n1.items[0].id}}`,
 *   `{{n1["key.with.dots"]}}`; whitespace inside the braces is ignored.
 * - A string that is exactly one template yields the raw value (array, number,
 *   object...). Templates inside longer text are stringified: objects and
 *   arrays as JSON, null as the empty string.
 * - A template that cannot be resolved (unknown name, bad path, undefined
 *   value) stays as literal text.
 * - Nothing is evaluated as code; only own properties of plain data are read,
 *   and `__proto__`, `constructor` and `prototype` are never traversed.
 * - Resolved values are data: they are not scanned for templates again.
 */

export type TemplateScope = Readonly<Record<string, unknown>>;

const TEMPLATE = /\{\{([^{}]+)\}\}/g;
const EXACT_TEMPLATE = /^\{\{([^{}]+)\}\}$/;
const PATH_SHAPE = /^(?:[^.[\]\s'"]+|\[\d+\]|\['[^']*'\]|\["[^"]*"\])(?:\.[^.[\]\s'"]+|\[\d+\]|\['[^']*'\]|\["[^"]*"\])*$/;
const PATH_TOKEN = /([^.[\]\s'"]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/g;
const MAX_DEPTH = 64;

export type LookupResult = { found: true; value: unknown } | { found: false };

/** Splits a template path into segments, or returns undefined when it is malformed. */
export function parsePath(path: string): string[] | undefined {
  const trimmed = path.trim();
  if (!PATH_SHAPE.test(trimmed)) return undefined;
  return [...trimmed.matchAll(PATH_TOKEN)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4] ?? '');
}

/** Reads a dotted path from `root`, through own properties and array indices only. */
export function lookupPath(root: unknown, path: string): LookupResult {
  const segments = parsePath(path);
  if (!segments) return { found: false };
  let current: unknown = root;
  for (const segment of segments) {
    if (FORBIDDEN_KEYS.has(segment)) return { found: false };
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return { found: false };
      const index = Number(segment);
      if (index >= current.length) return { found: false };
      current = current[index];
    } else if (current !== null && typeof current === 'object') {
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return { found: false };
      current = (current as Record<string, unknown>)[segment];
    } else {
      return { found: false };
    }
  }
  return current === undefined ? { found: false } : { found: true, value: current };
}

/** Whether `text` contains at least one `{{...}}` template. */
export function hasTemplate(text: string): boolean {
  return /\{\{[^{}]+\}\}/.test(text);
}

export interface TemplateOptions {
  /**
   * Applied to the text of every value inserted (never to the template's own
   * text). With it the result is always a string, even for a string that is
   * exactly one template: an HTML e-mail body escapes its values this way.
   */
  escape?: (value: string) => string;
}

/** Resolves the templates of one string (see the module comment for the rules). */
export function resolveTemplateString(text: string, scope: TemplateScope, options: TemplateOptions = {}): unknown {
  const { escape } = options;
  const exact = EXACT_TEMPLATE.exec(text);
  if (exact && !escape) {
    const result = lookupPath(scope, exact[1] ?? '');
    return result.found ? copyOf(result.value) : text;
  }
  return text.replace(TEMPLATE, (match, expression: string) => {
    const result = lookupPath(scope, expression);
    if (!result.found) return match;
    return escape ? escape(stringify(result.value)) : stringify(result.value);
  });
}

/**
 * Returns a copy of `value` with the templates of every string inside it
 * (objects and arrays, at any depth) resolved against `scope`. Object keys are
 * not templated; `__proto__` keys are dropped from the copy.
 */
export function resolveTemplates(value: unknown, scope: TemplateScope): unknown {
  return resolveDeep(value, scope, 0);
}

function resolveDeep(value: unknown, scope: TemplateScope, depth: number): unknown {
  if (typeof value === 'string') return resolveTemplateString(value, scope);
  if (depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => resolveDeep(item, scope, depth + 1));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') continue;
      out[key] = resolveDeep(item, scope, depth + 1);
    }
    return out;
  }
  return value;
}

/** Objects are copied so that a caller mutating a resolved config cannot alter node outputs. */
function copyOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

function stringify(value: unknown): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}

/**
 * Names the platform sets in a run's context (spec 2.6: `user_id`,
 * `execution_id`). They always mean what the platform says: a node id, a node
 * output or an input of the same name never shadows them, and validation
 * refuses node ids that clash with them.
 */
export const CONTEXT_NAMES = ['user_id', 'execution_id'] as const;
export type ContextName = (typeof CONTEXT_NAMES)[number];

const CONTEXT_NAME_SET: ReadonlySet<string> = new Set(CONTEXT_NAMES);

export function isContextName(name: string): name is ContextName {
  return CONTEXT_NAME_SET.has(name);
}

export interface ScopeParts {
  /** The execution inputs (trigger payload). */
  inputs?: unknown;
  /** Workflow context: only the names of CONTEXT_NAMES are taken from it. */
  context?: Partial<Record<ContextName, unknown>>;
  /** Outputs of completed nodes, by node id. */
  outputs?: unknown;
}

/**
 * The variables visible to templates and decision JSONPaths: inputs, then
 * node outputs by node id (an output wins over an input of the same name),
 * then the context. Context names come from the context alone: an input or
 * output named `user_id` or `execution_id` is dropped, so that nothing a
 * workflow author or caller writes can stand in for the run's user.
 * `__proto__` keys are ignored.
 */
export function buildScope(parts: ScopeParts): Record<string, unknown> {
  const scope: Record<string, unknown> = {};
  for (const layer of [parts.inputs, parts.outputs]) {
    if (!isPlainObject(layer)) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (key !== '__proto__' && !CONTEXT_NAME_SET.has(key)) scope[key] = value;
    }
  }
  const context = parts.context ?? {};
  for (const name of CONTEXT_NAMES) {
    if (context[name] !== undefined) scope[name] = context[name];
  }
  return scope;
}
