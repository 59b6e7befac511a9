import { globMatches } from './glob';

/** Event types of the event bus: the drive's (spec 6) and the e-mail source's. */
export const EVENT_TYPES = ['file_created', 'file_modified', 'email_received'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Filter keys whose values may hold `*` wildcards (spec 2.17), matched ignoring case. */
const WILDCARD_KEYS: ReadonlySet<string> = new Set(['name', 'mime_type', 'file_name', 'file_mime_type']);

export const FILTER_LIMITS = { maxKeys: 20, maxKeyLength: 64, maxValueLength: 256, maxAlternatives: 50 } as const;

type FilterScalar = string | number | boolean;

/** What a subscription says it wants (spec 2.17). */
export interface SubscriptionRule {
  /** Default `['*']`; an empty list is read as the default. */
  event_types?: readonly string[] | null;
  /** Matched against the event payload; empty or missing matches everything. */
  filter?: Readonly<Record<string, unknown>> | null;
}

/** `event_types` contains the type or `*` (spec 6). */
export function eventTypeMatches(eventTypes: readonly string[] | null | undefined, type: string): boolean {
  if (!eventTypes || eventTypes.length === 0) return true;
  return eventTypes.includes('*') || eventTypes.includes(type);
}

/**
 * The payload value a filter key names: the key itself, or else its `file_`
 * spelling, so the spec's `{"name": "*.pdf"}` and `{"mime_type": ...}` read
 * the event's `file_name` and `file_mime_type`.
 */
function payloadValue(payload: Readonly<Record<string, unknown>>, key: string): unknown {
  if (Object.prototype.hasOwnProperty.call(payload, key)) return payload[key];
  const alias = `file_${key}`;
  return Object.prototype.hasOwnProperty.call(payload, alias) ? payload[alias] : undefined;
}

function isScalar(value: unknown): value is FilterScalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function scalarMatches(key: string, expected: FilterScalar, actual: unknown): boolean {
  if (!isScalar(actual)) return false;
  if (WILDCARD_KEYS.has(key) && typeof expected === 'string') {
    return globMatches(expected.toLowerCase(), String(actual).toLowerCase());
  }
  return String(expected) === String(actual);
}

/**
 * Every key of `filter` matches the payload: a scalar by equality (wildcards
 * on `name` and `mime_type`), an array when any of its values does. A key the
 * payload lacks does not match.
 */
export function filterMatches(filter: Readonly<Record<string, unknown>> | null | undefined, payload: Readonly<Record<string, unknown>>): boolean {
  if (!filter) return true;
  for (const [key, expected] of Object.entries(filter)) {
    const actual = payloadValue(payload, key);
    if (actual === undefined) return false;
    const alternatives = Array.isArray(expected) ? expected : [expected];
    if (!alternatives.some((alt) => isScalar(alt) && scalarMatches(key, alt, actual))) return false;
  }
  return true;
}

/** Spec 6: the subscription's `event_types` contain the event's type or `*`, and its `filter` matches the payload. */
export function subscriptionMatches(rule: SubscriptionRule, eventType: string, payload: Readonly<Record<string, unknown>>): boolean {
  return eventTypeMatches(rule.event_types, eventType) && filterMatches(rule.filter, payload);
}

function validateFilter(filter: unknown, errors: string[]): void {
  if (filter === undefined || filter === null) return;
  if (typeof filter !== 'object' || Array.isArray(filter)) {
    errors.push('filter must be an object');
    return;
  }
  const entries = Object.entries(filter as Record<string, unknown>);
  if (entries.length > FILTER_LIMITS.maxKeys) errors.push(`filter may have at most ${FILTER_LIMITS.maxKeys} keys`);
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > FILTER_LIMITS.maxKeyLength) errors.push(`filter keys must have 1 to ${FILTER_LIMITS.maxKeyLength} characters`);
    const alternatives = Array.isArray(value) ? value : [value];
    if (Array.isArray(value) && (value.length === 0 || value.length > FILTER_LIMITS.maxAlternatives)) {
      errors.push(`filter.${key} must list 1 to ${FILTER_LIMITS.maxAlternatives} values`);
    }
    for (const alt of alternatives) {
      if (!isScalar(alt)) errors.push(`filter.${key} must be a string, number, boolean or an array of them`);
      else if (typeof alt === 'string' && alt.length > FILTER_LIMITS.maxValueLength) errors.push(`filter.${key} values must have at most ${FILTER_LIMITS.maxValueLength} characters`);
    }
  }
}

/** The problems of a subscription's `event_types` and `filter`, as strings for `details.errors` (spec 7); empty when valid. */
export function validateSubscriptionRule(rule: { event_types?: unknown; filter?: unknown }, knownTypes: readonly string[] = EVENT_TYPES): string[] {
  const errors: string[] = [];
  const types = rule.event_types;
  if (types !== undefined && types !== null) {
    if (!Array.isArray(types) || types.some((t) => typeof t !== 'string')) errors.push('event_types must be an array of strings');
    else for (const t of types as string[]) if (t !== '*' && !knownTypes.includes(t)) errors.push(`event_types: unknown event type "${t.slice(0, 64)}"`);
  }
  validateFilter(rule.filter, errors);
  return [...new Set(errors)];
}
