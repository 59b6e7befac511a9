/**
 * A JSON-style object: not null, not an array, and made by `{}`, JSON.parse
 * or Object.create(null) (of any realm), so a Date, Map or class instance is
 * not one. The one copy every service and lib uses.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** The message of an Error, or the thrown value as text: for logs and error messages. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
