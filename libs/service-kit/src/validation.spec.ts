import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { toInstance, validatePlain } from './validation';

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
