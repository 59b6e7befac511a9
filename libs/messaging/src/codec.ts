import { validatePlain, ValidationResult } from '@docflow/service-kit';

/** Parses a delivered body and validates it against its contract class. */
export function decodeMessage<T extends object>(cls: new () => T, content: Buffer): ValidationResult<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString('utf8'));
  } catch {
    return { ok: false, errors: ['body is not valid JSON'] };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, errors: ['body must be a JSON object'] };
  return validatePlain(cls, parsed);
}

/** Validates an outgoing message and serialises it. */
export function encodeMessage<T extends object>(cls: new () => T, message: T): ValidationResult<Buffer> {
  const check = validatePlain(cls, message);
  if (!check.ok) return check;
  return { ok: true, value: Buffer.from(JSON.stringify(message), 'utf8') };
}

/** The delivery count RabbitMQ's quorum queues report, as "this is delivery number N" (1 for the first). */
export function deliveryCountOf(headers: Record<string, unknown> | undefined, redelivered: boolean): number {
  const raw = headers?.['x-delivery-count'];
  const previous = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : undefined;
  if (previous !== undefined) return previous + 1;
  return redelivered ? 2 : 1;
}
