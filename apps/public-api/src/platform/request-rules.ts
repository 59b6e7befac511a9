import { isPlainObject } from '@docflow/service-kit';
import { SLUG_MAX, SLUG_PATTERN } from './public-access/slug';

/**
 * Field rules shared by the request classes of several modules, each a
 * function for `@Satisfies` from @docflow/service-kit: it returns the
 * field's problems (none: valid), each starting with the field's name.
 * A field left out (undefined) is never a problem here; `required` says
 * when it is.
 */
export type FieldProblems = (value: unknown) => string[];

/** The field must be given (not undefined); then `problems` apply. */
export const required =
  (key: string, problems: FieldProblems): FieldProblems =>
  (value) =>
    value === undefined ? [`${key}: is required`] : problems(value);

/** `true` or `false`. */
export const booleanProblems =
  (key: string): FieldProblems =>
  (value) =>
    value === undefined || typeof value === 'boolean' ? [] : [`${key}: must be true or false`];

/** A string of at most `max` characters, or null. */
export const nullableTextProblems =
  (key: string, max: number): FieldProblems =>
  (value) => {
    if (value === undefined || value === null) return [];
    if (typeof value !== 'string') return [`${key}: must be a string`];
    return value.length > max ? [`${key}: must be at most ${max} characters`] : [];
  };

/** An integer from `min` to `max`; `message` names the problem. */
export const integerProblems =
  (min: number, max: number, message: string): FieldProblems =>
  (value) =>
    value === undefined || (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) ? [] : [message];

/** A plain object (parsed JSON). */
export const objectProblems =
  (key: string, message = `${key}: must be an object`): FieldProblems =>
  (value) =>
    value === undefined || isPlainObject(value) ? [] : [message];

/** A URL slug (null: none given, the name's slug is taken). */
export const slugProblems =
  (message = `slug: lower-case letters and digits in dash-separated words, at most ${SLUG_MAX} characters`): FieldProblems =>
  (value) =>
    value === undefined || value === null || (typeof value === 'string' && SLUG_PATTERN.test(value) && value.length <= SLUG_MAX) ? [] : [message];

/** A record id (32-bit, positive). */
export function isRecordId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 2_147_483_647;
}
