import { createHash, randomBytes } from 'node:crypto';

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
  used: boolean;
}

interface Grant {
  refreshToken: string;
  scope: string;
  revoked: boolean;
}

interface AccessToken {
  grant: Grant;
  expiresAt: number;
}

export type TokenAnswer = { status: 200; body: Record<string, unknown> } | { status: 400 | 401; body: { error: string; error_description: string } };

const bad = (error: string, description: string, status: 400 | 401 = 400): TokenAnswer => ({ status, body: { error, error_description: description } });

/** OAuth 2.0 authorization codes (PKCE S256), grants with refresh tokens, and access tokens, as Google's endpoints keep them. */
export class OAuthState {
  private readonly codes = new Map<string, PendingCode>();
  private readonly grants = new Map<string, Grant>();
  private readonly accessTokens = new Map<string, AccessToken>();
  /** Lifetime of new access tokens. */
  accessTokenTtlSeconds = 3600;
  /** Token requests answered so far, by grant type. */
  readonly tokenRequests: { grantType: string }[] = [];

  constructor(
    readonly clientId: string,
    private readonly clientSecret: string,
  ) {}

  /** The consent screen's answer: a code for the redirect, or an error text. */
  authorize(query: URLSearchParams): { code: string } | { error: string } {
    if (query.get('client_id') !== this.clientId) return { error: 'invalid_client' };
    if (query.get('response_type') !== 'code') return { error: 'unsupported_response_type' };
    const redirectUri = query.get('redirect_uri');
    const challenge = query.get('code_challenge');
    if (!redirectUri) return { error: 'invalid_request: redirect_uri' };
    if (!challenge || query.get('code_challenge_method') !== 'S256') return { error: 'invalid_request: PKCE S256 is required' };
    const code = `code_${randomBytes(16).toString('base64url')}`;
    this.codes.set(code, { clientId: this.clientId, redirectUri, challenge, scope: query.get('scope') ?? '', used: false });
    return { code };
  }

  token(form: URLSearchParams, basicAuth: string | undefined): TokenAnswer {
    const grantType = form.get('grant_type') ?? '';
    this.tokenRequests.push({ grantType });
    const [id, secret] = basicAuth ? Buffer.from(basicAuth, 'base64').toString('utf8').split(':') : [form.get('client_id'), form.get('client_secret')];
    if (id !== this.clientId || secret !== this.clientSecret) return bad('invalid_client', 'The OAuth client was not found.', 401);
    if (grantType === 'authorization_code') return this.exchange(form);
    if (grantType === 'refresh_token') return this.refresh(form.get('refresh_token') ?? '');
    return bad('unsupported_grant_type', `Invalid grant_type: ${grantType}`);
  }

  /** `POST /revoke?token=`: a refresh token revokes its grant; an access token, its grant too (as Google does). */
  revoke(token: string): boolean {
    const grant = this.grants.get(token) ?? this.accessTokens.get(token)?.grant;
    if (!grant) return false;
    grant.revoked = true;
    return true;
  }

  /** Whether `Authorization: Bearer <token>` is valid now. */
  accessTokenValid(token: string): boolean {
    const entry = this.accessTokens.get(token);
    return entry !== undefined && !entry.grant.revoked && entry.expiresAt > Date.now();
  }

  /** Every access token issued so far stops working (as after their hour); refresh tokens still work. */
  expireAccessTokens(): void {
    for (const entry of this.accessTokens.values()) entry.expiresAt = 0;
  }

  /** The user removed the app's access: refresh and access tokens stop working. */
  revokeAll(): void {
    for (const grant of this.grants.values()) grant.revoked = true;
  }

  get grantCount(): number {
    return this.grants.size;
  }

  private exchange(form: URLSearchParams): TokenAnswer {
    const pending = this.codes.get(form.get('code') ?? '');
    if (!pending || pending.used) return bad('invalid_grant', 'Malformed auth code.');
    pending.used = true;
    if (form.get('redirect_uri') !== pending.redirectUri) return bad('redirect_uri_mismatch', 'Bad Request');
    const verifier = form.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) return bad('invalid_grant', 'Invalid code verifier.');
    const grant: Grant = { refreshToken: `1//r_${randomBytes(24).toString('base64url')}`, scope: pending.scope, revoked: false };
    this.grants.set(grant.refreshToken, grant);
    return { status: 200, body: { ...this.issue(grant), refresh_token: grant.refreshToken } };
  }

  private refresh(refreshToken: string): TokenAnswer {
    const grant = this.grants.get(refreshToken);
    if (!grant || grant.revoked) return bad('invalid_grant', 'Token has been expired or revoked.');
    return { status: 200, body: this.issue(grant) };
  }

  private issue(grant: Grant): Record<string, unknown> {
    const accessToken = `ya29.${randomBytes(24).toString('base64url')}`;
    this.accessTokens.set(accessToken, { grant, expiresAt: Date.now() + this.accessTokenTtlSeconds * 1000 });
    return { access_token: accessToken, expires_in: this.accessTokenTtlSeconds, scope: grant.scope, token_type: 'Bearer' };
  }
}
