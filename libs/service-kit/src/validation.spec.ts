import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { BadRequestError } from './errors';
import { parseBody, Satisfies, toInstance, validatePlain } from './validation';

class Flat {
  @IsString() name!: string;
  @IsObject() payload!: Record<string, unknown>;
}

class Inner {
  @IsInt() n!: number;
}

class WithNested {
  @IsOptional() @ValidateNested() @Type(() => Inner) inner?: Inner;
  @IsObject() payload!: Record<string, unknown>;
}

class WithConversion {
  @Type(() => Number) @IsInt() limit!: number;
}

class WithTransform {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)) @IsString() name!: string;
}

describe('validatePlain', () => {
  it('copies a value without typed properties shallowly: nested values are the same objects', () => {
    const payload = { deep: { list: [1, 2, { x: 1 }] } };
    const result = validatePlain(Flat, { name: 'a', payload });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toBeInstanceOf(Flat);
    expect(result.value.payload).toBe(payload);
  });

  it('still builds and validates nested instances where @Type says so', () => {
    const ok = validatePlain(WithNested, { inner: { n: 3 }, payload: {} });
    expect(ok.ok && ok.value.inner).toBeInstanceOf(Inner);
    const bad = validatePlain(WithNested, { inner: { n: 'three' }, payload: {} });
    expect(bad).toEqual({ ok: false, errors: ['inner.n must be an integer number'] });
  });

  it('still applies @Type conversions and @Transform', () => {
    expect(validatePlain(WithConversion, { limit: '25' })).toEqual({ ok: true, value: Object.assign(new WithConversion(), { limit: 25 }) });
    const trimmed = validatePlain(WithTransform, { name: '  bob ' });
    expect(trimmed.ok && trimmed.value.name).toBe('bob');
  });

  it('lists the same errors either way', () => {
    expect(validatePlain(Flat, { name: 5, payload: 'x' })).toEqual({ ok: false, errors: ['name must be a string', 'payload must be an object'] });
    expect(validatePlain(Flat, [1])).toEqual({ ok: false, errors: ['body must be a JSON object'] });
  });

  it('toInstance makes an instance of the class', () => {
    expect(toInstance(Flat, { name: 'x', payload: {} })).toBeInstanceOf(Flat);
  });
});

describe('validatePlain against keys that reach the prototype', () => {
  // JSON.parse makes `__proto__` and `constructor` own properties, as express.json does for a request body.
  it('drops a top-level __proto__, as plainToInstance does, instead of letting it replace the prototype and skip validation', () => {
    const bad = validatePlain(Flat, JSON.parse('{"name": 5, "payload": {}, "__proto__": {}}'));
    expect(bad).toEqual({ ok: false, errors: ['name must be a string'] });
    const good = validatePlain(Flat, JSON.parse('{"name": "a", "payload": {}, "__proto__": {"x": 1}}'));
    expect(good.ok).toBe(true);
    if (!good.ok) return;
    expect(Object.getPrototypeOf(good.value)).toBe(Flat.prototype);
    expect((good.value as unknown as Record<string, unknown>).x).toBeUndefined();
  });

  it('drops a top-level constructor, which class-validator would take for the class', () => {
    const bad = validatePlain(Flat, JSON.parse('{"name": 5, "payload": {}, "constructor": {}}'));
    expect(bad).toEqual({ ok: false, errors: ['name must be a string'] });
    const good = validatePlain(Flat, JSON.parse('{"name": "a", "payload": {}, "constructor": {}}'));
    expect(good.ok && Object.hasOwn(good.value, 'constructor')).toBe(false);
  });

  it('validates nested instances even when they carry such keys', () => {
    const proto = validatePlain(WithNested, JSON.parse('{"inner": {"n": "x", "__proto__": {}}, "payload": {}}'));
    expect(proto.ok).toBe(false);
    const ctor = validatePlain(WithNested, JSON.parse('{"inner": {"n": "x", "constructor": {}}, "payload": {}}'));
    expect(ctor.ok).toBe(false);
  });

  it('leaves such keys alone inside untyped values, where they are plain data', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 2}') as Record<string, unknown>;
    const result = validatePlain(Flat, { name: 'a', payload });
    expect(result.ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

class Paging {
  @Min(1) @IsInt() @IsDefined({ message: 'page is required' }) page!: number;
  @IsString() @IsOptional() q?: string;
}

describe('parseBody', () => {
  const refusal = (fn: () => unknown): BadRequestError => {
    try {
      fn();
    } catch (err) {
      return err as BadRequestError;
    }
    throw new Error('no refusal');
  };

  it('returns a validated instance', () => {
    const body = parseBody(Paging, { page: 2, q: 'x' });
    expect(body).toBeInstanceOf(Paging);
    expect(body).toEqual({ page: 2, q: 'x' });
  });

  it('refuses with a 400 listing every problem, under the route’s message', () => {
    const err = refusal(() => parseBody(Paging, { page: 'two', q: 3 }, { message: 'Invalid paging request' }));
    expect(err).toBeInstanceOf(BadRequestError);
    expect([err.status, err.message]).toEqual([400, 'Invalid paging request']);
    expect(err.details.errors).toEqual(expect.arrayContaining(['page must not be less than 1', 'page must be an integer number', 'q must be a string']));
  });

  it('names only the first failed check of a field with firstErrorOnly, and reads a missing body as {} with emptyAsObject', () => {
    expect(refusal(() => parseBody(Paging, undefined, { emptyAsObject: true, firstErrorOnly: true })).details.errors).toEqual(['page is required']);
    expect(refusal(() => parseBody(Paging, undefined)).details.errors).toEqual(['body must be a JSON object']);
  });
});

class TaggedBody {
  @IsString({ message: 'must be a string' })
  name!: string;

  @Satisfies((value) => (Array.isArray(value) ? value.flatMap((v, i) => (typeof v === 'number' ? [] : [`tags[${i}]: must be a number`])) : ['must be an array']))
  tags!: unknown[];

  @Satisfies((value, body) => (value === undefined || body['tags'] !== undefined ? [] : ['needs tags']))
  extra?: unknown;
}

describe('Satisfies', () => {
  it('reports each problem its function returns as one entry, in field order, named by the field unless it names itself', () => {
    expect(validatePlain(TaggedBody, { name: 5, tags: [1, 'x', 2, null] })).toEqual({ ok: false, errors: ['name: must be a string', 'tags[1]: must be a number', 'tags[3]: must be a number'] });
    expect(validatePlain(TaggedBody, { name: 'a', tags: 'x', extra: 1 })).toEqual({ ok: false, errors: ['tags: must be an array'] });
    expect(validatePlain(TaggedBody, { name: 'a', extra: 1 })).toEqual({ ok: false, errors: ['tags: must be an array', 'extra: needs tags'] });
    expect(validatePlain(TaggedBody, { name: 'a', tags: [1] })).toMatchObject({ ok: true });
  });
});
