import { checkContract } from '@docflow/contracts';
import { validatePlain, ValidationResult } from '@docflow/service-kit';

/**
 * Validates a plain object against its contract class: the hand-written
 * check of the hot contracts (`checkContract`, the same rules and messages
 * as the class's decorators) when there is one, else class-validator.
 * With a hand-written check the value is the object itself, not an
 * instance of the class (nothing tells them apart but the prototype).
 */
function validateContract<T extends object>(cls: new () => T, plain: Record<string, unknown>): ValidationResult<T> {
  const problems = checkContract(cls, plain);
  if (problems === undefined) return validatePlain(cls, plain);
  if (problems.length) return { ok: false, errors: problems };
  return { ok: true, value: plain as T };
}

/** Parses a delivered body and validates it against its contract class. */
export function decodeMessage<T extends object>(cls: new () => T, content: Buffer): ValidationResult<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString('utf8'));
  } catch {
    return { ok: false, errors: ['body is not valid JSON'] };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, errors: ['body must be a JSON object'] };
  const plain = parsed as Record<string, unknown>;
  // What validatePlain's copy leaves out: an own `__proto__` or `constructor` key of the JSON never reaches a handler.
  if (Object.hasOwn(plain, '__proto__')) delete plain['__proto__'];
  if (Object.hasOwn(plain, 'constructor')) delete plain['constructor'];
  return validateContract(cls, plain);
}

/** Validates an outgoing message and serialises it. */
export function encodeMessage<T extends object>(cls: new () => T, message: T): ValidationResult<Buffer> {
  const check = validateContract(cls, message as Record<string, unknown>);
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
