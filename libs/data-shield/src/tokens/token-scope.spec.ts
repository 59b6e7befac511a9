import type { DetectedEntity } from '../entities';
import { InvalidScopeError, ScopeSealer } from './scope-seal';
import { StreamRestorer, TokenScope } from './token-scope';

const at = (text: string, value: string, type: string): DetectedEntity => ({
  type,
  start: text.indexOf(value),
  end: text.indexOf(value) + value.length,
  score: 1,
  layer: 'L1',
  priority: 100,
  source: 't',
});

describe('TokenScope', () => {
  const text = 'Mail jane@example.com, then jane@example.com again; card 4111111111111111.';
  const entities = [
    at(text, 'jane@example.com', 'EMAIL'),
    { ...at(text, 'jane@example.com', 'EMAIL'), start: text.lastIndexOf('jane@'), end: text.lastIndexOf('jane@') + 16 },
    at(text, '4111111111111111', 'CREDIT_CARD'),
  ];

  it('gives <TYPE>_<8 hex> tokens, the same for the same value inside a scope', () => {
    const scope = new TokenScope();
    const out = scope.tokenise(text, entities);
    const tokens = out.match(/[A-Z_]+_[0-9a-f]{8}/g)!;
    expect(tokens).toHaveLength(3);
    expect(tokens[0]).toMatch(/^EMAIL_[0-9a-f]{8}$/);
    expect(tokens[0]).toBe(tokens[1]);
    expect(tokens[2]).toMatch(/^CREDIT_CARD_[0-9a-f]{8}$/);
    expect(out).not.toContain('jane@example.com');
  });

  it('gives different tokens in different scopes', () => {
    expect(new TokenScope().tokenFor('EMAIL', 'jane@example.com')).not.toBe(new TokenScope().tokenFor('EMAIL', 'jane@example.com'));
  });

  it('is deterministic under the same key, and resolves a collision with the next counter', () => {
    const key = Buffer.alloc(32, 7);
    const a = new TokenScope(key).tokenFor('EMAIL', 'x@y.io');
    expect(new TokenScope(key).tokenFor('EMAIL', 'x@y.io')).toBe(a);
    const colliding = new TokenScope(key);
    const second = colliding.tokenFor('EMAIL', 'x@y.io', (t) => t === a);
    expect(second).not.toBe(a);
    expect(colliding.restore(second)).toBe('x@y.io');
  });

  it('restores known tokens and leaves unknown ones untouched', () => {
    const scope = new TokenScope();
    const token = scope.tokenFor('PERSON', 'Jane Smith');
    expect(scope.restore(`Dear ${token}, PERSON_deadbeef is not yours. ID${token}.`)).toBe('Dear Jane Smith, PERSON_deadbeef is not yours. IDJane Smith.');
  });

  it('restores across stream chunk boundaries, whatever the split', () => {
    const scope = new TokenScope();
    const email = scope.tokenFor('EMAIL', 'jane@example.com');
    const bank = scope.tokenFor('US_BANK_NUMBER', '000123456789');
    const reply = `Write to ${email} about ${bank}. Unknown: EMAIL_00000000 and ${email}`;
    const expected = scope.restore(reply);
    expect(expected).toBe('Write to jane@example.com about 000123456789. Unknown: EMAIL_00000000 and jane@example.com');
    for (let size = 1; size <= 12; size++) {
      const restorer = new StreamRestorer(scope);
      let out = '';
      for (let i = 0; i < reply.length; i += size) out += restorer.push(reply.slice(i, i + size));
      out += restorer.end();
      expect(out).toBe(expected);
    }
  });
});

describe('ScopeSealer', () => {
  it('round-trips a reverse map and refuses tampered, foreign or expired handles', () => {
    let now = 1000;
    const sealer = new ScopeSealer('secret-one', 60_000, () => now);
    const handle = sealer.seal([['EMAIL_1a2b3c4d', 'a@b.io']]);
    expect(handle).not.toContain('a@b.io');
    expect(sealer.open(handle)).toEqual([['EMAIL_1a2b3c4d', 'a@b.io']]);
    expect(() => new ScopeSealer('secret-two', 60_000, () => now).open(handle)).toThrow(InvalidScopeError);
    expect(() => sealer.open(`${handle.slice(0, -2)}AA`)).toThrow(InvalidScopeError);
    now += 61_000;
    expect(() => sealer.open(handle)).toThrow('expired');
  });
});
