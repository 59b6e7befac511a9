import 'reflect-metadata';
import { plainToInstance, TransformationType } from 'class-transformer';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { registerDecorator, validateSync, ValidationError, type ValidationArguments } from 'class-validator';
import { BadRequestError } from './errors';

/** Flattens class-validator errors into readable strings: `field.sub: constraint`. */
export function describeValidationErrors(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const path = prefix ? `${prefix}.${e.property}` : e.property;
    // A constraint may name several problems, one per line (see Satisfies).
    const messages = e.constraints ? Object.values(e.constraints).flatMap((c) => c.split('\n')) : [];
    out.push(...messages.map((c) => (c.startsWith(e.property) ? `${prefix ? `${prefix}.` : ''}${c}` : `${path}: ${c}`)));
    if (e.children?.length) out.push(...describeValidationErrors(e.children, path));
  }
  return out;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/**
 * Whether plainToInstance would do more for this value than copy its own
 * properties onto a new instance: a top-level property with @Type,
 * @Transform, @Expose or @Exclude, or a class-wide expose/exclude strategy.
 * Without any, class-transformer only deep-copies untyped nested values
 * into new plain objects, which class-validator then treats exactly as the
 * originals; that copy was a sixth of the router's CPU per job (a workflow
 * job carries its whole definition, and is checked four times on its way).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- the type class-transformer's storage takes
function needsTransformer(cls: Function, plain: object): boolean {
  const storage = defaultMetadataStorage;
  if (storage.getStrategy(cls) !== 'none') return true;
  for (const key of Object.keys(plain)) {
    if (storage.findTypeMetadata(cls, key) || storage.findExposeMetadata(cls, key) || storage.findExcludeMetadata(cls, key)) return true;
    if (storage.findTransformMetadatas(cls, key, TransformationType.PLAIN_TO_CLASS).length) return true;
  }
  return false;
}

/**
 * A new instance of `cls` with the plain value's properties: a shallow copy
 * when that is all plainToInstance would do (see needsTransformer), else
 * plainToInstance. Nested values may be shared with `plain`.
 */
export function toInstance<T extends object>(cls: new () => T, plain: object): T {
  if (needsTransformer(cls, plain)) return plainToInstance(cls, plain);
  const value = new cls();
  for (const [key, v] of Object.entries(plain)) {
    // JSON.parse makes these own keys. Assigned, `__proto__` would replace the
    // prototype and an own `constructor` would hide the class from
    // class-validator, skipping validation; plainToInstance drops both too.
    if (key === '__proto__' || key === 'constructor') continue;
    (value as Record<string, unknown>)[key] = v;
  }
  return value;
}

export interface ValidateOptions {
  whitelist?: boolean;
  /** Name only the first failed check of each field (checks run right to left), so a missing value is named as such alone. */
  firstErrorOnly?: boolean;
}

/** Turns a plain value into a validated instance of `cls`, or lists what is wrong with it. */
export function validatePlain<T extends object>(cls: new () => T, plain: unknown, options: ValidateOptions = {}): ValidationResult<T> {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return { ok: false, errors: ['body must be a JSON object'] };
  }
  const value = toInstance(cls, plain);
  const errors = validateSync(value, { whitelist: options.whitelist ?? false, forbidUnknownValues: false, ...(options.firstErrorOnly ? { stopAtFirstError: true } : {}) });
  if (errors.length) return { ok: false, errors: describeValidationErrors(errors) };
  return { ok: true, value };
}

export interface ParseBodyOptions extends ValidateOptions {
  /** The 400's message. Default `Invalid request body`. */
  message?: string;
  /** A missing body (undefined or null) reads as `{}`: for bodies whose every field is optional. */
  emptyAsObject?: boolean;
}

/**
 * The one way a route reads a request body: an instance of the
 * class-validator class `cls`, or a 400 in the spec's error shape whose
 * `details.errors` lists every problem. Called in routes, never in services.
 */
export function parseBody<T extends object>(cls: new () => T, body: unknown, options: ParseBodyOptions = {}): T {
  const parsed = validatePlain(cls, options.emptyAsObject ? (body ?? {}) : body, options);
  if (!parsed.ok) throw BadRequestError.withErrors(options.message ?? 'Invalid request body', parsed.errors);
  return parsed.value;
}

/**
 * A field rule class-validator's decorators cannot say, as a function: it
 * returns the field's problems (none: valid), each reported as one entry of
 * `details.errors`, in order. A problem that starts with the field's name
 * (`documents[2]: ...`, `fields.key: ...`) is reported as written, any
 * other as `<field>: <problem>`. `object` is the whole body, for rules that
 * look at a sibling field.
 */
export function Satisfies(check: (value: unknown, object: Record<string, unknown>) => string[]): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'satisfies',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate: (value: unknown, args: ValidationArguments) => check(value, args.object as Record<string, unknown>).length === 0,
        defaultMessage: (args?: ValidationArguments) => (args ? check(args.value, args.object as Record<string, unknown>).join('\n') : 'is invalid'),
      },
    });
  };
}
