import { compileSchema } from './compile';
import { formatSchemaErrors } from './format-errors';

export const MISSING_INPUT_SCHEMA_MESSAGE = 'The workflow definition lacks an input schema (input_schema)';

/**
 * Validates `value` against a JSON Schema (ajv, all errors, formats). Returns
 * readable messages prefixed with `label` (`payload.amount must be number`);
 * empty when valid. An unusable schema yields one message saying why.
 */
export function validateAgainstSchema(schema: unknown, value: unknown, label: string): string[] {
  const compiled = compileSchema(schema);
  if ('error' in compiled) return [`The schema for ${label} is not a valid JSON Schema: ${compiled.error}`];
  if (compiled.validate(value)) return [];
  return formatSchemaErrors(compiled.validate.errors, label);
}

/**
 * Validates execution inputs against the definition's `input_schema`. A
 * missing schema is itself an error (spec 2.6); missing inputs count as `{}`.
 */
export function validateInputs(inputSchema: unknown, inputs: unknown): string[] {
  if (inputSchema === undefined || inputSchema === null) return [MISSING_INPUT_SCHEMA_MESSAGE];
  return validateAgainstSchema(inputSchema, inputs ?? {}, 'inputs');
}

/** Why `schema` is not a usable JSON Schema, or undefined when it compiles. */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  const compiled = compileSchema(schema);
  return 'error' in compiled ? compiled.error : undefined;
}
