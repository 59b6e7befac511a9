import { signedDownloadUrl, verifySignedRequest } from './signed-urls';

const config = { PUBLIC_BASE_URL: 'https://docs.example.com', JWT_SECRET: 'jwt-secret-0123456789abcdef', SIGNED_URL_TTL_SECONDS: 3600 };
const now = Date.UTC(2025, 0, 1);

describe('signed download URLs', () => {
  it('sign /api/documents/{id}/signed-download with the configured lifetime', () => {
    const { url, expiresAt } = signedDownloadUrl(config, 7, { now });
    expect(url).toMatch(/^https:\/\/docs\.example\.com\/api\/documents\/7\/signed-download\?expires=\d+&signature=[\w-]+$/);
    expect(expiresAt.getTime()).toBe(now + 3600 * 1000);
    const path = url.slice('https://docs.example.com'.length);
    expect(verifySignedRequest(config, path, now)).toBe('valid');
    expect(verifySignedRequest(config, path, now + 3601 * 1000)).toBe('expired');
    expect(verifySignedRequest(config, path.replace('/7/', '/8/'), now)).toBe('invalid');
    expect(verifySignedRequest({ ...config, JWT_SECRET: 'another-secret-0123456789' }, path, now)).toBe('invalid');
  });

  it('cover the base path of a PUBLIC_BASE_URL behind a proxy that strips it', () => {
    const proxied = { ...config, PUBLIC_BASE_URL: 'https://example.com/docflow/' };
    const { url } = signedDownloadUrl(proxied, 3, { now, ttlSeconds: 60 });
    expect(url.startsWith('https://example.com/docflow/api/documents/3/signed-download?')).toBe(true);
    // The app sees the path without /docflow.
    expect(verifySignedRequest(proxied, url.slice('https://example.com/docflow'.length), now)).toBe('valid');
  });
});
