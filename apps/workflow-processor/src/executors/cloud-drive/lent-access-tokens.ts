import { DriveReconnectError, DriveRetryableError, type AccessTokenSource, type LentAccessToken } from '@docflow/cloud-drive';
import { DRIVE_TOKEN_ERRORS, DriveAccessTokenResponse, INTERNAL_DRIVE_ACCESS_TOKEN_PATH, type DriveAccessTokenRequest } from '@docflow/contracts';
import { InternalHttpClient, type InternalResponse } from '@docflow/internal-http';
import { validatePlain, type Logger } from '@docflow/service-kit';
import { publicApiHttp } from '../public-api-http';

export interface LentAccessTokensOptions {
  /** PUBLIC_API_INTERNAL_URL, without /api. */
  baseUrl: string;
  serviceKey: string;
  logger: Logger;
  timeoutMs?: number;
}

/** A lent token is used until this long before it expires. */
const MARGIN_MS = 60_000;

/**
 * The workflow processor holds no refresh token: with the google provider it
 * borrows the run user's access token from the public API
 * (`POST /api/internal/cloud-drive/access-token`, libs/contracts
 * cloud-drive.ts) and keeps it in memory until shortly before it expires.
 */
export class LentAccessTokens implements AccessTokenSource {
  private readonly http: InternalHttpClient;
  private readonly cache = new Map<number, LentAccessToken>();

  constructor(private readonly options: LentAccessTokensOptions) {
    this.http = publicApiHttp({ baseUrl: options.baseUrl, serviceKey: options.serviceKey, timeoutMs: options.timeoutMs ?? 30_000, maxSockets: 8 });
  }

  async accessToken(userId: number, options: { forceRefresh?: boolean } = {}): Promise<LentAccessToken> {
    const cached = this.cache.get(userId);
    if (cached && !options.forceRefresh && cached.expiresAt - MARGIN_MS > Date.now()) return cached;
    const body: DriveAccessTokenRequest = { user_id: userId, ...(options.forceRefresh ? { force_refresh: true } : {}) };
    let res: InternalResponse;
    try {
      res = await this.http.request({ method: 'POST', path: INTERNAL_DRIVE_ACCESS_TOKEN_PATH, json: body });
    } catch {
      throw new DriveRetryableError('The public API could not be reached for the drive access token', 5000);
    }
    const code = (res.body as { error?: unknown } | null)?.error;
    if (res.status === 409 && (DRIVE_TOKEN_ERRORS as readonly unknown[]).includes(code)) {
      this.cache.delete(userId);
      throw new DriveReconnectError(code === 'drive_not_connected' ? 'The cloud drive is not connected for this user' : 'The cloud drive must be connected again');
    }
    if (res.status !== 200) throw new DriveRetryableError(`The public API answered ${res.status} for the drive access token`, 5000, res.status);
    const checked = validatePlain(DriveAccessTokenResponse, res.body);
    if (!checked.ok) throw new DriveRetryableError(`The public API sent a drive access token without ${checked.errors.join(', ')}`, 5000);
    const token = { accessToken: checked.value.access_token, expiresAt: Date.parse(checked.value.expires_at) };
    this.cache.set(userId, token);
    return token;
  }

  async refused(userId: number): Promise<void> {
    // The public API notices a revoked grant at its next refresh; here only the cached token goes.
    this.cache.delete(userId);
    this.options.logger.warn('Google Drive refused a freshly lent access token', { userId });
  }
}
