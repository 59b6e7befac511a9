import jwt from 'jsonwebtoken';
import { claimsOf, JWT_ISSUER, signAccessToken } from './tokens';
import { generateStepUpCode, hashStepUpCode } from './step-up.service';

describe('signAccessToken', () => {
  it('signs HS256 with sub, jti, role, iat, exp, iss and the token version', () => {
    const signed = signAccessToken({ id: 42, role: 'super_admin', tokenVersion: 3 }, { secret: 's3cret-s3cret-s3cret', expiresInSeconds: 3600 });
    const decoded = jwt.verify(signed.token, 's3cret-s3cret-s3cret', { algorithms: ['HS256'], complete: true });
    expect(decoded.header.alg).toBe('HS256');
    const claims = claimsOf(decoded.payload);
    expect(claims).toEqual({ sub: '42', jti: signed.jti, role: 'super_admin', iat: expect.any(Number), exp: signed.exp, iss: JWT_ISSUER, tv: 3 });
    expect(signed.exp - claims!.iat).toBe(3600);
  });

  it('gives every token a jti of its own', () => {
    const a = signAccessToken({ id: 1, role: 'user' }, { secret: 'k', expiresInSeconds: 60 });
    const b = signAccessToken({ id: 1, role: 'user' }, { secret: 'k', expiresInSeconds: 60 });
    expect(a.jti).not.toBe(b.jti);
  });
});

describe('claimsOf', () => {
  const good = { sub: '7', jti: '0b7e4c1e-7d0e-4a8e-9a53-0a6c1f0b8d11', role: 'user', iat: 1, exp: 2, iss: JWT_ISSUER };

  it('refuses payloads missing a claim or with a wrong one', () => {
    expect(claimsOf(good)).toEqual({ ...good, tv: 0 });
    expect(claimsOf({ ...good, tv: 2 })).toEqual({ ...good, tv: 2 });
    expect(claimsOf({ ...good, tv: -1 })).toBeUndefined();
    expect(claimsOf({ ...good, tv: '2' })).toBeUndefined();
    expect(claimsOf({ ...good, sub: 'seven' })).toBeUndefined();
    expect(claimsOf({ ...good, sub: '0' })).toBeUndefined();
    expect(claimsOf({ ...good, jti: 'x' })).toBeUndefined();
    expect(claimsOf({ ...good, role: 'root' })).toBeUndefined();
    expect(claimsOf({ ...good, exp: undefined })).toBeUndefined();
    expect(claimsOf('a string')).toBeUndefined();
  });
});

describe('step-up codes', () => {
  it('are 6 digits, leading zeros kept', () => {
    for (let i = 0; i < 200; i++) expect(generateStepUpCode()).toMatch(/^\d{6}$/);
  });

  it('are hashed with a keyed HMAC', () => {
    expect(hashStepUpCode('012345', 'k1')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashStepUpCode('012345', 'k1')).toBe(hashStepUpCode('012345', 'k1'));
    expect(hashStepUpCode('012345', 'k1')).not.toBe(hashStepUpCode('012345', 'k2'));
    expect(hashStepUpCode('012345', 'k1')).not.toBe(hashStepUpCode('012346', 'k1'));
  });
});
