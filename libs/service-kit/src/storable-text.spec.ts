import { storableText, unstorablePath } from './storable-text';

describe('storable text', () => {
  it('refuses NUL and unpaired surrogates, and keeps paired ones (emoji)', () => {
    expect(storableText('plain é 😀')).toBe(true);
    expect(storableText('a\u0000b')).toBe(false);
    expect(storableText('\ud800')).toBe(false);
    expect(storableText('x\udc00')).toBe(false);
  });

  it('names the first unstorable string or key inside a JSON value', () => {
    expect(unstorablePath({ a: ['ok', { b: 1 }], c: '😀' })).toBeUndefined();
    expect(unstorablePath({ a: ['ok', { b: 'x\u0000' }] }, 'inputs')).toBe('inputs.a[1].b');
    expect(unstorablePath({ ['k\ud800']: 1 }, 'inputs')).toBe('inputs.?');
    expect(unstorablePath('\u0000', 'name')).toBe('name');
  });
});
