import jwt from 'jsonwebtoken';
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

  it('are the token jsonwebtoken would sign with the same claims, header and key', () => {
    const secret = 'jwt-secret-0123456789';
    const before = Math.floor(Date.now() / 1000);
    const token = signPollingToken({ executionId: 41, userId: 7 }, secret);
    const decoded = jwt.decode(token, { complete: true });
    const payload = decoded?.payload as Record<string, unknown>;
    // jsonwebtoken takes the issue time from the payload: the same second gives the same string.
    const reference = jwt.sign({ uid: 7, iat: payload['iat'] }, secret, { algorithm: 'HS256', subject: '41', issuer: 'docflow-polling', audience: 'workflow-execution', expiresIn: 3600 });
    expect(decoded?.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload['iat']).toBeGreaterThanOrEqual(before);
    expect(payload).toEqual({ uid: 7, iat: payload['iat'], exp: (payload['iat'] as number) + 3600, aud: 'workflow-execution', iss: 'docflow-polling', sub: '41' });
    expect(jwt.verify(token, secret, { algorithms: ['HS256'], issuer: 'docflow-polling', audience: 'workflow-execution', subject: '41' })).toEqual(payload);
    expect(token).toBe(reference);
  });

  it('peek the same answer for a token asked again (remembered per exact string), and tell a token that differs by one character apart', () => {
    const polling = signPollingToken({ executionId: 10, userId: 3 }, 'jwt-secret-0123456789');
    const access = jwt.sign({ sub: '3' }, 'jwt-secret-0123456789', { issuer: 'docflow' });
    for (let i = 0; i < 3; i++) {
      expect(looksLikePollingToken(polling)).toBe(true);
      expect(looksLikePollingToken(access)).toBe(false);
    }
    // The same claims under another signature is another string: peeked on its own (and verified in full by its check).
    expect(looksLikePollingToken(`${polling.slice(0, -1)}${polling.endsWith('A') ? 'B' : 'A'}`)).toBe(true);
    expect(looksLikePollingToken(`x${'a'.repeat(3000)}.b.c`)).toBe(false);
  });
});
