import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';

/** Flattens class-validator errors into readable strings: `field.sub: constraint`. */
export function describeValidationErrors(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) out.push(...Object.values(e.constraints).map((c) => (c.startsWith(e.property) ? `${prefix ? `${prefix}.` : ''}${c}` : `${path}: ${c}`)));
    if (e.children?.length) out.push(...describeValidationErrors(e.children, path));
  }
  return out;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** Turns a plain value into a validated instance of `cls`, or lists what is wrong with it. */
export function validatePlain<T extends object>(cls: new () => T, plain: unknown, options: { whitelist?: boolean } = {}): ValidationResult<T> {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return { ok: false, errors: ['body must be a JSON object'] };
  }
  const value = plainToInstance(cls, plain);
  const errors = validateSync(value, { whitelist: options.whitelist ?? false, forbidUnknownValues: false });
  if (errors.length) return { ok: false, errors: describeValidationErrors(errors) };
  return { ok: true, value };
}
