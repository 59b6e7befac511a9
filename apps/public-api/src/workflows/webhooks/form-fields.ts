import { isPlainObject } from '@docflow/workflow';

/**
 * Multipart fields arrive as strings. A field the workflow's input_schema
 * declares as a number, integer, boolean, null, object or array (and not also
 * as a string) is read as that type when its text is one, so that a form can
 * send what a JSON body would (`amount=30` for `{type: number}`); anything
 * else stays the string it was, for the schema check to name.
 */
export function coerceFormFields(fields: Record<string, unknown>, inputSchema: unknown): Record<string, unknown> {
  const properties = isPlainObject(inputSchema) && isPlainObject(inputSchema['properties']) ? inputSchema['properties'] : {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const property = Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
    out[key] = typeof value === 'string' && isPlainObject(property) ? coerce(value, typesOf(property['type'])) : value;
  }
  return out;
}

function typesOf(type: unknown): string[] {
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

function coerce(text: string, types: string[]): unknown {
  if (types.length === 0 || types.includes('string')) return text;
  const trimmed = text.trim();
  if ((types.includes('number') || types.includes('integer')) && /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(trimmed)) {
    const n = Number(trimmed);
    if (types.includes('number') || Number.isInteger(n)) return n;
  }
  if (types.includes('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  if (types.includes('null') && (trimmed === '' || trimmed === 'null')) return null;
  if ((types.includes('object') && trimmed.startsWith('{')) || (types.includes('array') && trimmed.startsWith('['))) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if ((types.includes('object') && isPlainObject(parsed)) || (types.includes('array') && Array.isArray(parsed))) return parsed;
    } catch {
      // Not JSON: left as text for the schema check to report.
    }
  }
  return text;
}
