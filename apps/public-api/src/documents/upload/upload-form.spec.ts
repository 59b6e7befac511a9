import { BadRequestError } from '@docflow/service-kit';
import { parseUploadFields } from './upload-form';

function errorsOf(body: unknown): string[] {
  try {
    parseUploadFields(body);
  } catch (err) {
    if (err instanceof BadRequestError) return (err.details.errors as string[]) ?? [];
    throw err;
  }
  throw new Error('expected a BadRequestError');
}

describe('parseUploadFields', () => {
  it('reads the plain form fields', () => {
    expect(parseUploadFields({ title: ' Report ', description: 'd', tags: '["a", "b", "a", " "]', metadata: '{"k": 1}', global: 'true', globalKey: 'terms-v1' })).toEqual({
      title: 'Report',
      description: 'd',
      tags: ['a', 'b'],
      metadata: { k: 1 },
      global: true,
      globalKey: 'terms-v1',
    });
  });

  it('reads the `data` JSON field, which wins over plain fields', () => {
    expect(parseUploadFields({ title: 'plain', data: '{"title": "from data", "tags": ["x"], "metadata": {"y": 2}}' })).toEqual({
      title: 'from data',
      description: null,
      tags: ['x'],
      metadata: { y: 2 },
      global: false,
    });
  });

  it('defaults everything, leaving the title to the filename', () => {
    expect(parseUploadFields({})).toEqual({ description: null, tags: [], metadata: {}, global: false });
    expect(parseUploadFields({ title: '   ', tags: 'one, two' })).toEqual({ description: null, tags: ['one', 'two'], metadata: {}, global: false });
  });

  it('lists every problem', () => {
    expect(errorsOf({ title: 'x'.repeat(256), tags: '[1]', metadata: '{bad', global: 'yes', globalKey: '../etc' })).toEqual([
      'title: must be at most 255 characters',
      'tags: must be an array of strings (a JSON array in a form field)',
      'metadata: must be valid JSON',
      'global: must be true or false',
      'globalKey: must be 1-128 letters, digits, dots, dashes or underscores, starting with a letter or digit',
    ]);
    expect(errorsOf({ data: '[1]' })).toEqual(['data: must be a JSON object']);
    expect(errorsOf({ globalKey: 'k' })).toEqual(['globalKey: only allowed with global=true']);
    expect(errorsOf({ title: ['a', 'b'] })).toEqual(['title: given more than once']);
  });
});
