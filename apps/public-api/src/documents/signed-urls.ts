import { signUrl, type SignedUrlVerdict, verifySignedUrl } from '@docflow/storage';
import type { PublicApiConfig } from '../platform';
import { signedUrlSecret } from './storage-from-config';

export type SignedUrlConfig = Pick<PublicApiConfig, 'PUBLIC_BASE_URL' | 'SIGNED_URL_SECRET' | 'JWT_SECRET' | 'SIGNED_URL_TTL_SECONDS'>;

export interface SignedDownloadUrl {
  url: string;
  expiresAt: Date;
}

/** The path (below /api) that serves a document to the holder of a signed URL. */
export function signedDownloadPath(documentId: number): string {
  return `/documents/${documentId}/signed-download`;
}

/**
 * An absolute URL that downloads the document without a bearer token until it
 * expires (SIGNED_URL_TTL_SECONDS by default): for internal consumers and RAG
 * sources. HMAC-SHA256 over the path and expiry (see @docflow/storage signUrl).
 */
export function signedDownloadUrl(config: SignedUrlConfig, documentId: number, options: { ttlSeconds?: number; now?: number } = {}): SignedDownloadUrl {
  return signedApiUrl(config, signedDownloadPath(documentId), options);
}

/** The same signed link for any path below /api (data exports' archives use it too). */
export function signedApiUrl(config: SignedUrlConfig, path: string, options: { ttlSeconds?: number; now?: number } = {}): SignedDownloadUrl {
  const now = options.now ?? Date.now();
  const url = signUrl({
    baseUrl: `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/api`,
    path,
    expiresInSeconds: options.ttlSeconds ?? config.SIGNED_URL_TTL_SECONDS,
    secret: signedUrlSecret(config),
    now,
  });
  const expires = Number(new URL(url).searchParams.get('expires'));
  return { url, expiresAt: new Date(expires * 1000) };
}

/**
 * Checks a request's URL (Express `req.originalUrl`, which starts at /api)
 * against its signature. A PUBLIC_BASE_URL with a path prefix (a proxy that
 * strips it) is put back first, since the signature covers the public path.
 */
export function verifySignedRequest(config: SignedUrlConfig, originalUrl: string, now?: number): SignedUrlVerdict {
  const prefix = new URL(config.PUBLIC_BASE_URL).pathname.replace(/\/+$/, '');
  return verifySignedUrl(`${prefix}${originalUrl}`, signedUrlSecret(config), now);
}
