import vm from 'node:vm';
import { errorMessage, isPlainObject } from './values';

describe('isPlainObject', () => {
  it('accepts objects from literals, JSON.parse, Object.create(null) and another realm', () => {
    expect(isPlainObject({ a: 1 })).toBe(true);
    expect(isPlainObject(JSON.parse('{"a":1}'))).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject(vm.runInNewContext('({ a: 1 })'))).toBe(true);
  });

  it('refuses null, arrays, primitives and class instances', () => {
    for (const v of [null, undefined, [], [1], 'x', 3, true, new Date(), new Map(), new (class Foo {})()]) expect(isPlainObject(v)).toBe(false);
  });
});

describe('errorMessage', () => {
  it('reads an Error message and turns anything else into text', () => {
    expect(errorMessage(new TypeError('bad'))).toBe('bad');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});
