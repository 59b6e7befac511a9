import { createHash, randomBytes } from 'node:crypto';
import { DriveOAuthError } from '../drive-errors';
import type { DriveTokenSealer } from './grant-store';

const PURPOSE = 'cloud_drive_oauth_state';
/** How long a user has between "connect" and the provider's redirect back. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

/** RFC 7636: a verifier of 43 to 128 unreserved characters (32 random bytes, base64url). */
export function createCodeVerifier(): string {
  return randomBytes(32).toString('base64url');
}

/** RFC 7636 S256: base64url(SHA-256(verifier)). */
export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export interface OAuthStateContent {
  verifier: string;
  redirectUri: string;
}

/**
 * The `state` parameter carries the PKCE verifier and the redirect URI,
 * sealed for the user who started the flow: no server-side session is
 * needed (any replica can complete it), the verifier never travels in the
 * clear, and a state started by another user does not open (the sealer binds
 * the owner id).
 */
export function sealOAuthState(sealer: DriveTokenSealer, userId: number, content: OAuthStateContent, now = Date.now()): string {
  return sealer.seal({ purpose: PURPOSE, verifier: content.verifier, redirect_uri: content.redirectUri, expires_at: String(now + OAUTH_STATE_TTL_MS), nonce: randomBytes(8).toString('hex') }, userId);
}

export function openOAuthState(sealer: DriveTokenSealer, userId: number, state: string, now = Date.now()): OAuthStateContent {
  let fields: Record<string, string>;
  try {
    fields = sealer.open(state, userId);
  } catch {
    throw new DriveOAuthError('The authorization state is not valid for this user; start connecting again');
  }
  const expiresAt = Number(fields['expires_at']);
  if (fields['purpose'] !== PURPOSE || !fields['verifier'] || !fields['redirect_uri']) throw new DriveOAuthError('The authorization state is not valid; start connecting again');
  if (!Number.isFinite(expiresAt) || expiresAt < now) throw new DriveOAuthError('The authorization took too long; start connecting again');
  return { verifier: fields['verifier'], redirectUri: fields['redirect_uri'] };
}
