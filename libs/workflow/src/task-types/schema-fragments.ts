import type { JsonSchema } from '../types';

/**
 * Building blocks for the task-type JSON Schemas (draft-07).
 *
 * Config strings may hold `{{templates}}` that are resolved only at run time.
 * Numeric and boolean fields a user may reasonably drive from inputs or
 * upstream outputs (timeouts, limits, flags, ids inside request bodies) and
 * array fields such as `to` therefore also accept a string that is exactly one
 * template; enums and `credential_id` do not (they must be known before
 * template resolution).
 */

export const JSON_SCHEMA_DRAFT = 'http://json-schema.org/draft-07/schema#';

/** A string that is exactly one `{{template}}` (whitespace inside the braces allowed). */
export const TEMPLATE_STRING_PATTERN = '^\\{\\{[^{}]+\\}\\}$';

export const MODEL_TYPES = ['provider_a', 'provider_b', 'provider_c'] as const;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export const CLASSIFICATION_TYPES = ['document_type', 'sentiment', 'topic'] as const;

export const templateString: JsonSchema = {
  type: 'string',
  pattern: TEMPLATE_STRING_PATTERN,
  description: 'a string that is exactly one {{template}}, resolved at run time',
};

/** `schema` or a single template; `extra` (default, description) sits beside the anyOf. */
export function templatable(schema: JsonSchema, extra: JsonSchema = {}): JsonSchema {
  return { ...extra, anyOf: [schema, templateString] };
}

export function objectSchema(properties: Record<string, JsonSchema>, required: readonly string[] = [], extra: JsonSchema = {}): JsonSchema {
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required: [...required] } : {}),
    additionalProperties: true,
    ...extra,
  };
}

export const modelType: JsonSchema = {
  type: 'string',
  enum: [...MODEL_TYPES],
  default: 'provider_a',
  description: 'LLM provider slot',
};

export const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };

export const positiveNumber = (description: string, defaultValue?: number): JsonSchema =>
  templatable(
    { type: 'number', exclusiveMinimum: 0 },
    {
      description,
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
    },
  );

export const flag = (description: string, defaultValue: boolean): JsonSchema => templatable({ type: 'boolean' }, { description, default: defaultValue });

export const idValue = (description: string): JsonSchema => templatable({ type: 'integer', minimum: 1 }, { description });

export const fileUrl: JsonSchema = { type: 'string', minLength: 1, description: 'URL of the document to process' };

/** Deep-freezes a registry value so no consumer can mutate a shared schema. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
