import type { Logger } from '@docflow/service-kit';
import { DriveOAuthError, DriveProtocolError, DriveReconnectError } from '../drive-errors';
import type { DriveGrantStore, DriveTokenSealer, StoredDriveGrant } from './grant-store';
import type { AccessTokenSource } from './google-drive-api';
import { googleMessage, type GoogleHttp } from './google-http';

/** The OAuth client of `CLOUD_DRIVE_CLIENT_ID` / `CLOUD_DRIVE_CLIENT_SECRET` at `CLOUD_DRIVE_OAUTH_TOKEN_URL`. */
export interface OAuthClientSettings {
  tokenUrl: string;
  /** Default: the token URL with its last path segment replaced by `revoke` (Google's is https://oauth2.googleapis.com/revoke). */
  revokeUrl?: string;
  clientId: string;
  clientSecret: string;
}

/** A user's tokens, open (only in memory, never logged). */
export interface DriveTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms. */
  expiresAt: number;
  scope: string;
}

/** An access token is refreshed this long before Google says it expires. */
const EXPIRY_MARGIN_MS = 60_000;

interface TokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  scope?: unknown;
  error?: unknown;
}

function defaultRevokeUrl(tokenUrl: string): string {
  const url = new URL(tokenUrl);
  url.pathname = url.pathname.replace(/[^/]*$/, 'revoke');
  return url.toString();
}

/**
 * Token exchange, refresh and revocation for one OAuth client, and the
 * user's sealed tokens in the grant store: `accessToken(userId)` gives a
 * valid access token, refreshing it when it is about to expire (one refresh
 * per user at a time in a process). A refresh refused with `invalid_grant`
 * (revoked or expired grant) marks the grant `needs_reconnect` and throws
 * DriveReconnectError.
 */
export class GoogleTokens implements AccessTokenSource {
  private readonly refreshing = new Map<number, Promise<DriveTokens>>();

  constructor(
    private readonly settings: OAuthClientSettings,
    private readonly http: GoogleHttp,
    private readonly store: DriveGrantStore,
    private readonly sealer: DriveTokenSealer,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Exchanges an authorization code (with its PKCE verifier) and stores the sealed tokens. */
  async exchangeCode(userId: number, code: string, verifier: string, redirectUri: string): Promise<void> {
    const answer = await this.tokenRequest({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri });
    if (answer.status !== 200) throw new DriveOAuthError(`The drive refused the authorization code (${googleMessage(answer.status, answer.data)})`);
    const tokens = this.tokensFrom(answer.data, null);
    await this.save(userId, tokens);
  }

  async accessToken(userId: number, options: { forceRefresh?: boolean } = {}): Promise<DriveTokens> {
    const tokens = await this.load(userId);
    if (!options.forceRefresh && tokens.expiresAt - EXPIRY_MARGIN_MS > this.clock()) return tokens;
    let pending = this.refreshing.get(userId);
    if (!pending) {
      pending = this.refresh(userId, tokens).finally(() => this.refreshing.delete(userId));
      this.refreshing.set(userId, pending);
    }
    return pending;
  }

  /** Google refused a refreshed token: the grant needs a new connection. */
  refused(userId: number, message: string): Promise<void> {
    return this.markNeedsReconnect(userId, message);
  }

  /** Marks the grant as needing a new connection (its sources become inactive with this message). */
  async markNeedsReconnect(userId: number, message: string): Promise<void> {
    const grant = await this.store.get(userId);
    if (!grant) return;
    await this.store.save(userId, { ...grant, status: 'needs_reconnect', errorMessage: message, updatedAt: new Date(this.clock()) });
  }

  /** Revokes the refresh token at Google (best effort) and forgets the grant. */
  async revoke(userId: number): Promise<void> {
    const grant = await this.store.get(userId);
    if (!grant) return;
    try {
      const tokens = this.open(userId, grant);
      const res = await this.http.send({
        method: 'POST',
        url: this.settings.revokeUrl ?? defaultRevokeUrl(this.settings.tokenUrl),
        data: new URLSearchParams({ token: tokens.refreshToken }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      if (res.status !== 200) this.logger.warn('drive token revocation refused; forgetting the grant anyway', { userId, status: res.status });
    } catch (err) {
      this.logger.warn('drive token revocation failed; forgetting the grant anyway', { userId, err });
    }
    await this.store.delete(userId);
  }

  private async refresh(userId: number, current: DriveTokens): Promise<DriveTokens> {
    const answer = await this.tokenRequest({ grant_type: 'refresh_token', refresh_token: current.refreshToken });
    if (answer.status === 400 || answer.status === 401) {
      const code = (answer.data as TokenAnswer | null)?.error;
      if (code === 'invalid_grant' || code === 'unauthorized_client' || code === 'invalid_client') {
        const message = 'The cloud drive access was revoked or has expired; connect the drive again';
        await this.markNeedsReconnect(userId, message);
        throw new DriveReconnectError(message);
      }
    }
    if (answer.status !== 200) throw new DriveProtocolError(`Refreshing the drive access failed (${googleMessage(answer.status, answer.data)})`, answer.status);
    const tokens = this.tokensFrom(answer.data, current.refreshToken);
    await this.save(userId, tokens);
    return tokens;
  }

  private tokenRequest(fields: Record<string, string>) {
    const { clientId, clientSecret } = this.settings;
    return this.http.send<TokenAnswer>({
      method: 'POST',
      url: this.settings.tokenUrl,
      data: new URLSearchParams({ ...fields, client_id: clientId, client_secret: clientSecret }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    });
  }

  private tokensFrom(data: TokenAnswer | null, previousRefreshToken: string | null): DriveTokens {
    const accessToken = data?.access_token;
    const refreshToken = typeof data?.refresh_token === 'string' ? data.refresh_token : previousRefreshToken;
    const expiresIn = Number(data?.expires_in);
    if (typeof accessToken !== 'string' || !accessToken || !refreshToken || !Number.isFinite(expiresIn)) {
      throw new DriveProtocolError('The drive answered the token request without an access token, refresh token or lifetime');
    }
    return { accessToken, refreshToken, expiresAt: this.clock() + expiresIn * 1000, scope: typeof data?.scope === 'string' ? data.scope : '' };
  }

  private async load(userId: number): Promise<DriveTokens> {
    const grant = await this.store.get(userId);
    if (!grant) throw new DriveReconnectError('The cloud drive is not connected');
    if (grant.status !== 'connected') throw new DriveReconnectError(grant.errorMessage ?? 'The cloud drive must be connected again');
    return this.open(userId, grant);
  }

  private open(userId: number, grant: StoredDriveGrant): DriveTokens {
    let fields: Record<string, string>;
    try {
      fields = this.sealer.open(grant.sealedTokens, userId);
    } catch {
      throw new DriveReconnectError('The stored drive access cannot be opened; connect the drive again');
    }
    return { accessToken: fields['access_token'] ?? '', refreshToken: fields['refresh_token'] ?? '', expiresAt: Number(fields['expires_at']) || 0, scope: fields['scope'] ?? '' };
  }

  private async save(userId: number, tokens: DriveTokens): Promise<void> {
    const sealedTokens = this.sealer.seal({ access_token: tokens.accessToken, refresh_token: tokens.refreshToken, expires_at: String(tokens.expiresAt), scope: tokens.scope }, userId);
    await this.store.save(userId, { sealedTokens, status: 'connected', errorMessage: null, updatedAt: new Date(this.clock()) });
  }
}
