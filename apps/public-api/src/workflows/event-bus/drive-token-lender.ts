import { type DriveGrantStore, type DriveProvider, GoogleDriveProvider, isDriveError } from '@docflow/cloud-drive';

export type LendOutcome =
  { kind: 'lent'; accessToken: string; expiresAt: number } | { kind: 'drive_not_connected' | 'drive_needs_reconnect' | 'not_available'; status: 404 | 409 | 503; message: string };

/**
 * `POST /api/internal/cloud-drive/access-token` (libs/contracts
 * cloud-drive.ts): lends the user's current Google access token to the
 * workflow processor (refreshed when due, or at once with force_refresh),
 * never the refresh token. With the local provider there is nothing to lend.
 */
export class DriveTokenLender {
  constructor(
    private readonly provider: DriveProvider,
    private readonly grants: DriveGrantStore,
    private readonly onReconnectNeeded: (userId: number, message: string) => Promise<void>,
  ) {}

  async lend(userId: number, forceRefresh: boolean): Promise<LendOutcome> {
    if (!(this.provider instanceof GoogleDriveProvider)) return { kind: 'not_available', status: 404, message: 'The local drive provider lends no tokens' };
    const grant = await this.grants.get(userId);
    if (!grant) return { kind: 'drive_not_connected', status: 409, message: 'The cloud drive is not connected for this user' };
    if (grant.status === 'needs_reconnect') return { kind: 'drive_needs_reconnect', status: 409, message: 'The cloud drive must be connected again' };
    try {
      const token = await this.provider.accessToken(userId, { forceRefresh });
      return { kind: 'lent', accessToken: token.accessToken, expiresAt: token.expiresAt };
    } catch (err) {
      if (isDriveError(err) && (err.kind === 'needs_reconnect' || err.kind === 'oauth')) {
        await this.onReconnectNeeded(userId, err.message);
        return { kind: 'drive_needs_reconnect', status: 409, message: 'The cloud drive must be connected again' };
      }
      if (isDriveError(err)) return { kind: 'not_available', status: 503, message: 'The drive’s token endpoint is unavailable; retry later' };
      throw err;
    }
  }
}
