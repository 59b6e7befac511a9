import { isPlainObject } from '@docflow/service-kit';
import { RTIO_ROLES, type RtioOutputFormat, type RtioPrompt, type RtioRole, type RtioRoleName } from './types';

function strings(value: unknown): string[] {
  if (typeof value === 'string') return value.trim() ? [value] : [];
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is string => typeof v === 'string' && v.trim().length > 0);
}

function roles(value: unknown): RtioRole[] {
  if (!Array.isArray(value)) return [];
  const out: RtioRole[] = [];
  for (const item of value) {
    if (!isPlainObject(item)) continue;
    const role = item['role'];
    const prompt = item['prompt'] ?? item['content'];
    if (typeof role === 'string' && (RTIO_ROLES as readonly string[]).includes(role) && typeof prompt === 'string' && prompt.trim()) {
      out.push({ role: role as RtioRoleName, prompt });
    }
  }
  return out;
}

/**
 * The RTIO part of a prompt record as another service received it (the API's
 * camelCase `outputFormat`/`exampleOutput` or the column names
 * `output_format`/`example_output`), with malformed entries left out.
 * Undefined when the record has no role, task or instruction at all.
 * Without a stated format, a record with an example output is JSON, else text.
 */
export function toRtioPrompt(record: unknown): RtioPrompt | undefined {
  if (!isPlainObject(record)) return undefined;
  const prompt: RtioPrompt = {
    roles: roles(record['roles']),
    tasks: strings(record['tasks']),
    instructions: strings(record['instructions']),
    outputFormat: 'text',
  };
  if (prompt.roles.length + prompt.tasks.length + prompt.instructions.length === 0) return undefined;
  const example = record['exampleOutput'] ?? record['example_output'];
  if (isPlainObject(example)) prompt.exampleOutput = example;
  const format = record['outputFormat'] ?? record['output_format'];
  const stated: RtioOutputFormat | undefined = format === 'json' || format === 'text' ? format : undefined;
  prompt.outputFormat = stated ?? (prompt.exampleOutput ? 'json' : 'text');
  return prompt;
}
