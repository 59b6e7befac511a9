import { StorageKeyError } from './errors';
import { assertValidKey, generateKey, isValidKey } from './keys';

describe('generateKey', () => {
  it('builds yyyy/mm/<uuid> from the UTC date', () => {
    const key = generateKey(undefined, new Date('2026-03-31T23:30:00-05:00'));
    expect(key).toMatch(/^2026\/04\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('appends a normalised extension', () => {
    expect(generateKey('.PDF', new Date('2026-01-05T00:00:00Z'))).toMatch(/^2026\/01\/[0-9a-f-]{36}\.pdf$/);
  });

  it('gives a different key each time', () => {
    expect(generateKey('pdf')).not.toBe(generateKey('pdf'));
  });

  it('refuses an extension that could smuggle a path', () => {
    expect(() => generateKey('../x')).toThrow(StorageKeyError);
    expect(() => generateKey('p/df')).toThrow(StorageKeyError);
  });

  it('produces keys that pass validation', () => {
    expect(isValidKey(generateKey('docx'))).toBe(true);
  });
});

describe('key validation', () => {
  it.each([
    ['../etc/passwd'],
    ['2026/../../etc/passwd'],
    ['/etc/passwd'],
    ['2026/05/'],
    ['2026//05/x'],
    ['./x'],
    ['2026/05/.hidden.tmp'],
    ['..'],
    ['a\\..\\b'],
    ['a/b%2f..'],
    ['C:/x'],
    ['x\u0000y'],
    [''],
    ['a'.repeat(513)],
  ])('refuses %j', (key) => {
    expect(isValidKey(key)).toBe(false);
    expect(() => assertValidKey(key)).toThrow(StorageKeyError);
  });

  it('explains the refusal in details.errors', () => {
    try {
      assertValidKey('../x');
      throw new Error('not refused');
    } catch (err) {
      expect(err).toBeInstanceOf(StorageKeyError);
      expect((err as StorageKeyError).status).toBe(400);
      expect((err as StorageKeyError).details['errors']).toEqual([expect.stringContaining('..')]);
    }
  });

  it.each([['2026/05/0b6f4c1e-7d4c-4a57-9d38-2a0f0f9d7c11.pdf'], ['global/report_v2.final.docx'], ['a']])('accepts %j', (key) => {
    expect(isValidKey(key)).toBe(true);
  });
});
