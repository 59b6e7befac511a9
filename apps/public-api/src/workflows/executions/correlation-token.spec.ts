import { correlationTokenMatches, CorrelationTokenSealer, hashCorrelationToken } from './correlation-token';
import { looksLikePollingToken, signPollingToken, verifyPollingToken } from './polling-token';

describe('correlation tokens', () => {
  it('match only the token whose hash is stored', () => {
    const hash = hashCorrelationToken('tok-123');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(correlationTokenMatches('tok-123', hash)).toBe(true);
    expect(correlationTokenMatches('tok-124', hash)).toBe(false);
    expect(correlationTokenMatches('tok-123', null)).toBe(false);
  });

  it('seal for one execution and one key: another execution id or key cannot open them', () => {
    const sealer = new CorrelationTokenSealer('secret-one-0123456789abcdef');
    const sealed = sealer.seal('tok-123', 5);
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain('tok-123');
    expect(sealer.seal('tok-123', 5)).not.toBe(sealed);
    expect(sealer.open(sealed, 5)).toBe('tok-123');
    expect(sealer.open(sealed, 6)).toBeUndefined();
    expect(new CorrelationTokenSealer('secret-two-0123456789abcdef').open(sealed, 5)).toBeUndefined();
    expect(sealer.open('v1.AAAA', 5)).toBeUndefined();
    expect(sealer.open('garbage', 5)).toBeUndefined();
  });
});

describe('polling tokens', () => {
  it('grant reads of one execution, under their own issuer', () => {
    const token = signPollingToken({ executionId: 9, userId: 3 }, 'jwt-secret-0123456789');
    expect(looksLikePollingToken(token)).toBe(true);
    expect(verifyPollingToken(token, 'jwt-secret-0123456789')).toEqual({ executionId: 9, userId: 3 });
    expect(verifyPollingToken(token, 'other-secret-0123456789')).toBeUndefined();
    expect(verifyPollingToken(signPollingToken({ executionId: 9, userId: 3 }, 'jwt-secret-0123456789', -10), 'jwt-secret-0123456789')).toBeUndefined();
    expect(looksLikePollingToken('not.a.jwt')).toBe(false);
  });
});
