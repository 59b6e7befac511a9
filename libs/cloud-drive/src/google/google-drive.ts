import type { Logger } from '@docflow/service-kit';
import { DriveUnsupportedError } from '../drive-errors';
import type { ChangePage, ConnectCallback, ConnectStart, DownloadOptions, DriveDownload, DriveFile, DriveProvider, DriveWatch, GrantStatus, WatchRequest } from '../drive-provider';
import type { DriveGrantStore, DriveTokenSealer } from './grant-store';
import { GOOGLE_API_URL, GoogleDriveApi, type LentAccessToken } from './google-drive-api';
import { GoogleHttp, type GoogleHttpOptions } from './google-http';
import { GoogleTokens } from './google-tokens';
import { codeChallengeS256, createCodeVerifier, openOAuthState, sealOAuthState } from './oauth-state';

/** Google's endpoints: the defaults of the runtime contract. */
export const GOOGLE_DEFAULTS = {
  apiUrl: GOOGLE_API_URL,
  authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  /** Read-only access is all the event bus and the fetch task need (watching changes included). */
  scope: 'https://www.googleapis.com/auth/drive.readonly',
} as const;

export interface GoogleDriveOptions {
  /** `CLOUD_DRIVE_API_URL` */
  apiUrl?: string;
  /** `CLOUD_DRIVE_OAUTH_AUTH_URL` */
  authUrl?: string;
  /** `CLOUD_DRIVE_OAUTH_TOKEN_URL` */
  tokenUrl?: string;
  revokeUrl?: string;
  /** `CLOUD_DRIVE_CLIENT_ID`, `CLOUD_DRIVE_CLIENT_SECRET` */
  clientId: string;
  clientSecret: string;
  scope?: string;
  grants: DriveGrantStore;
  /** The credential store's sealer (AES-256-GCM with CREDENTIALS_MASTER_KEY, bound to the owner). */
  sealer: DriveTokenSealer;
  logger: Logger;
  http?: GoogleHttpOptions;
  clock?: () => number;
}

/**
 * The `google` provider: Google Drive v3 over axios. Authorization code
 * with PKCE S256 and a sealed state bound to the user; tokens sealed in the
 * grant store and refreshed before expiry or after a 401; changes through
 * `changes.getStartPageToken`, `changes.list` and `changes.watch` push
 * channels (`channels.stop` to close one); files through `files.get`,
 * `files.list` and `alt=media` downloads; backoff honouring Retry-After on
 * 429 and 5xx (google-http.ts).
 */
export class GoogleDriveProvider implements DriveProvider {
  readonly kind = 'google' as const;
  private readonly http: GoogleHttp;
  private readonly tokens: GoogleTokens;
  private readonly api: GoogleDriveApi;
  private readonly clock: () => number;

  constructor(private readonly options: GoogleDriveOptions) {
    this.clock = options.clock ?? Date.now;
    this.http = new GoogleHttp(options.http);
    this.tokens = new GoogleTokens(
      { tokenUrl: options.tokenUrl ?? GOOGLE_DEFAULTS.tokenUrl, revokeUrl: options.revokeUrl, clientId: options.clientId, clientSecret: options.clientSecret },
      this.http,
      options.grants,
      options.sealer,
      options.logger,
      this.clock,
    );
    this.api = new GoogleDriveApi(options.apiUrl ?? GOOGLE_DEFAULTS.apiUrl, this.http, this.tokens, this.clock);
  }

  async grantStatus(userId: number): Promise<GrantStatus> {
    const grant = await this.options.grants.get(userId);
    return { connected: grant?.status === 'connected', needsReconnect: grant?.status === 'needs_reconnect' };
  }

  async beginConnect(userId: number, redirectUri: string): Promise<ConnectStart> {
    const verifier = createCodeVerifier();
    const url = new URL(this.options.authUrl ?? GOOGLE_DEFAULTS.authUrl);
    url.search = new URLSearchParams({
      client_id: this.options.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: this.options.scope ?? GOOGLE_DEFAULTS.scope,
      // A refresh token, and a consent screen each time so Google hands a new one out.
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: sealOAuthState(this.options.sealer, userId, { verifier, redirectUri }, this.clock()),
      code_challenge: codeChallengeS256(verifier),
      code_challenge_method: 'S256',
    }).toString();
    return { kind: 'redirect', authorizationUrl: url.toString() };
  }

  async completeConnect(userId: number, callback: ConnectCallback): Promise<void> {
    const { verifier, redirectUri } = openOAuthState(this.options.sealer, userId, callback.state, this.clock());
    await this.tokens.exchangeCode(userId, callback.code, verifier, redirectUri);
  }

  async disconnect(userId: number): Promise<void> {
    await this.tokens.revoke(userId);
  }

  /**
   * The user's access token (refreshed when due, or at once with
   * `forceRefresh`), for the internal route that lends it to the workflow
   * processor; never the refresh token.
   */
  async accessToken(userId: number, options: { forceRefresh?: boolean } = {}): Promise<LentAccessToken> {
    const tokens = await this.tokens.accessToken(userId, options);
    return { accessToken: tokens.accessToken, expiresAt: tokens.expiresAt };
  }

  async prepareFolder(userId: number, folderId: string): Promise<DriveFile> {
    const folder = await this.getFile(userId, folderId);
    if (!folder.isFolder) throw new DriveUnsupportedError(`${folder.name} is not a folder`);
    return folder;
  }

  getStartPageToken(userId: number, folderId: string): Promise<string> {
    return this.api.getStartPageToken(userId, folderId);
  }

  listChanges(userId: number, folderId: string, pageToken: string): Promise<ChangePage> {
    return this.api.listChanges(userId, folderId, pageToken);
  }

  watch(userId: number, request: WatchRequest): Promise<DriveWatch> {
    return this.api.watch(userId, request);
  }

  stopWatch(userId: number, watch: Pick<DriveWatch, 'channelId' | 'resourceId'>): Promise<void> {
    return this.api.stopWatch(userId, watch);
  }

  getFile(userId: number, fileId: string): Promise<DriveFile> {
    return this.api.getFile(userId, fileId);
  }

  findFile(userId: number, folderId: string, name: string): Promise<DriveFile | null> {
    return this.api.findFile(userId, folderId, name);
  }

  download(userId: number, fileId: string, options?: DownloadOptions): Promise<DriveDownload> {
    return this.api.download(userId, fileId, options);
  }

  async close(): Promise<void> {
    this.http.close();
  }
}
