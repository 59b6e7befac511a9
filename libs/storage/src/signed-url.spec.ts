import { signUrl, verifySignedUrl } from './signed-url';

const secret = 'test-signing-secret';
const now = Date.parse('2026-05-01T12:00:00Z');
const nowSeconds = now / 1000;

function sign(path = '/documents/global/download/2026/05/abc.pdf', expiresInSeconds?: number): string {
  return signUrl({ baseUrl: 'http://127.0.0.1:1337/api', path, secret, now, ...(expiresInSeconds !== undefined ? { expiresInSeconds } : {}) });
}

function withParam(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}

describe('signUrl', () => {
  it('keeps the base path prefix and adds expires (default one hour) and a base64url signature', () => {
    const url = new URL(sign());
    expect(url.origin).toBe('http://127.0.0.1:1337');
    expect(url.pathname).toBe('/api/documents/global/download/2026/05/abc.pdf');
    expect(url.searchParams.get('expires')).toBe(String(nowSeconds + 3600));
    expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('is deterministic for the same inputs and differs by secret', () => {
    expect(sign()).toBe(sign());
    const other = signUrl({ baseUrl: 'http://127.0.0.1:1337/api', path: '/documents/global/download/2026/05/abc.pdf', secret: 'other', now });
    expect(other).not.toBe(sign());
  });

  it('refuses an empty secret and a non-positive lifetime', () => {
    expect(() => signUrl({ baseUrl: 'http://x', path: '/a', secret: '' })).toThrow();
    expect(() => signUrl({ baseUrl: 'http://x', path: '/a', secret, expiresInSeconds: 0 })).toThrow(RangeError);
  });
});

describe('verifySignedUrl', () => {
  it('accepts the absolute URL and the path with query, before expiry', () => {
    const url = sign();
    expect(verifySignedUrl(url, secret, now)).toBe('valid');
    const u = new URL(url);
    expect(verifySignedUrl(`${u.pathname}${u.search}`, secret, now + 3599_000)).toBe('valid');
  });

  it('says expired once expires has passed', () => {
    const url = sign(undefined, 60);
    expect(verifySignedUrl(url, secret, now + 59_000)).toBe('valid');
    expect(verifySignedUrl(url, secret, now + 60_000)).toBe('expired');
    expect(verifySignedUrl(url, secret, now + 86_400_000)).toBe('expired');
  });

  it('refuses a changed path', () => {
    const url = sign();
    expect(verifySignedUrl(url.replace('abc.pdf', 'abd.pdf'), secret, now)).toBe('invalid');
    expect(verifySignedUrl(url.replace('/api/', '/'), secret, now)).toBe('invalid');
  });

  it('refuses a pushed-back expiry, even an expired URL made to look fresh', () => {
    const url = sign(undefined, 60);
    const extended = withParam(url, 'expires', String(nowSeconds + 7200));
    expect(verifySignedUrl(extended, secret, now)).toBe('invalid');
    expect(verifySignedUrl(extended, secret, now + 120_000)).toBe('invalid');
  });

  it('refuses a changed, truncated, re-spelled or missing signature', () => {
    const url = sign();
    const signature = new URL(url).searchParams.get('signature')!;
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect(verifySignedUrl(withParam(url, 'signature', flipped), secret, now)).toBe('invalid');
    expect(verifySignedUrl(withParam(url, 'signature', signature.slice(0, -1)), secret, now)).toBe('invalid');
    // Same bytes, non-canonical last character (unused low bits set).
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = `${signature.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    expect(verifySignedUrl(withParam(url, 'signature', respelled), secret, now)).toBe('invalid');
    const u = new URL(url);
    u.searchParams.delete('signature');
    expect(verifySignedUrl(u.toString(), secret, now)).toBe('invalid');
  });

  it('refuses the URL under another secret', () => {
    expect(verifySignedUrl(sign(), 'another-secret', now)).toBe('invalid');
  });

  it('refuses an added query parameter and duplicated expires', () => {
    const url = sign();
    expect(verifySignedUrl(`${url}&inline=1`, secret, now)).toBe('invalid');
    expect(verifySignedUrl(`${url}&expires=${nowSeconds + 10}`, secret, now)).toBe('invalid');
  });

  it('covers query parameters that were part of the signed path', () => {
    const url = sign('/documents/global/download/k?disposition=inline');
    expect(verifySignedUrl(url, secret, now)).toBe('valid');
    expect(verifySignedUrl(url.replace('disposition=inline', 'disposition=attachment'), secret, now)).toBe('invalid');
  });

  it('refuses dot segments that normalise onto a signed path', () => {
    const u = new URL(sign());
    const sneaky = `/api/documents/x/../global/download/2026/05/abc.pdf${u.search}`;
    expect(verifySignedUrl(sneaky, secret, now)).toBe('invalid');
  });

  it('refuses garbage', () => {
    expect(verifySignedUrl('', secret, now)).toBe('invalid');
    expect(verifySignedUrl('/a?expires=abc&signature=xyz', secret, now)).toBe('invalid');
    expect(verifySignedUrl('http://[bad', secret, now)).toBe('invalid');
  });
});
