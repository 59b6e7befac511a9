import { createHash } from 'node:crypto';
import { TestSealer } from '../test-support/test-sealer';
import { retryAfterMs } from './google-http';
import { OAUTH_STATE_TTL_MS, codeChallengeS256, createCodeVerifier, openOAuthState, sealOAuthState } from './oauth-state';

describe('PKCE and the sealed state', () => {
  const sealer = new TestSealer();

  it('makes the S256 challenge unpadded base64url of the SHA-256 of the verifier', () => {
    const verifier = createCodeVerifier();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const challenge = codeChallengeS256(verifier);
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const hex = Buffer.from(challenge.replace(/-/g, '+').replace(/_/g, '/') + '=', 'base64').toString('hex');
    expect(hex).toBe(createHash('sha256').update(verifier).digest('hex'));
  });

  it('opens for the user who started, within ten minutes', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    const state = sealOAuthState(sealer, 7, { verifier: 'v'.repeat(43), redirectUri: 'https://x/cb' }, now);
    expect(openOAuthState(sealer, 7, state, now + OAUTH_STATE_TTL_MS)).toEqual({ verifier: 'v'.repeat(43), redirectUri: 'https://x/cb' });
    expect(() => openOAuthState(sealer, 7, state, now + OAUTH_STATE_TTL_MS + 1)).toThrow(expect.objectContaining({ kind: 'oauth' }));
    expect(() => openOAuthState(sealer, 8, state, now)).toThrow(expect.objectContaining({ kind: 'oauth' }));
  });

  it('does not take another sealed value of the same user as a state', () => {
    const other = sealer.seal({ verifier: 'x', redirect_uri: 'https://x/cb', expires_at: String(Date.now() + 60_000) }, 7);
    expect(() => openOAuthState(sealer, 7, other)).toThrow(expect.objectContaining({ kind: 'oauth' }));
  });
});

describe('retryAfterMs', () => {
  it('reads delta seconds and HTTP dates', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });
});
