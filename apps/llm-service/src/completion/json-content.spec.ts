import { renderTemplate } from '../extract/extract-request';
import { parseJsonContent } from './json-content';

describe('parseJsonContent', () => {
  it('reads bare, fenced and prefaced JSON objects and arrays', () => {
    expect(parseJsonContent(' {"a": 1} ')).toEqual({ a: 1 });
    expect(parseJsonContent('```json\n{"a": [1, 2]}\n```')).toEqual({ a: [1, 2] });
    expect(parseJsonContent('```\n[1, 2]\n```')).toEqual([1, 2]);
    expect(parseJsonContent('Result: {"ok": true}. Done')).toEqual({ ok: true });
  });

  it('gives undefined for text, scalars and broken JSON', () => {
    expect(parseJsonContent('no json here')).toBeUndefined();
    expect(parseJsonContent('42')).toBeUndefined();
    expect(parseJsonContent('"text"')).toBeUndefined();
    expect(parseJsonContent('{"a": 1')).toBeUndefined();
  });
});

describe('renderTemplate', () => {
  it('replaces {content} and {{ content }} and appends otherwise', () => {
    expect(renderTemplate('A {content} B {{ content }}', 'X')).toBe('A X B X');
    expect(renderTemplate('Summarise:  ', '$1 text')).toBe('Summarise:\n\n$1 text');
  });
});
