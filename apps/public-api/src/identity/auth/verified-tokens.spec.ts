import { VerifiedTokens } from './verified-tokens';

describe('VerifiedTokens', () => {
  it('returns a remembered payload until the token expires', () => {
    let now = 1_000_000;
    const tokens = new VerifiedTokens(10, () => now);
    tokens.add('a.b.c', { sub: '1' }, 1_000 + 60); // exp in seconds: 1,060,000 ms
    expect(tokens.get('a.b.c')).toEqual({ sub: '1' });
    expect(tokens.get('a.b.d')).toBeUndefined();
    now = 1_060_000;
    expect(tokens.get('a.b.c')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('forgets the oldest token beyond its size', () => {
    const tokens = new VerifiedTokens(2, () => 0);
    tokens.add('t1', { n: 1 }, 100);
    tokens.add('t2', { n: 2 }, 100);
    tokens.add('t3', { n: 3 }, 100);
    expect(tokens.get('t1')).toBeUndefined();
    expect(tokens.get('t3')).toEqual({ n: 3 });
    expect(tokens.size).toBe(2);
  });
});
