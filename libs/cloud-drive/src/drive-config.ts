import path from 'node:path';
import { IsIn, IsInt, IsString, IsUrl, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { BaseConfig, EnvInt, type Logger } from '@docflow/service-kit';
import type { DriveNotification, DriveProvider, DriveProviderKind } from './drive-provider';
import { DEFAULT_SETTLE_SECONDS } from './events/file-settler';
import type { DriveGrantStore, DriveTokenSealer } from './google/grant-store';
import { GOOGLE_DEFAULTS, GoogleDriveProvider } from './google/google-drive';
import { LocalDriveProvider } from './local/local-drive';

const URL_OPTIONS = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };
const needsGoogle = (c: CloudDriveConfig) => c.CLOUD_DRIVE_PROVIDER === 'google';

/**
 * The variables of the runtime contract's "Cloud drive and e-mail event
 * sources", named exactly so. A service loads it on its own
 * (`loadConfigOrExit(CloudDriveConfig, name)`) beside its main config.
 */
export class CloudDriveConfig extends BaseConfig {
  @IsIn(['local', 'google'])
  CLOUD_DRIVE_PROVIDER: DriveProviderKind = 'local';

  /** With `local`: user N's drive is `<root>/N/`; relative to the project root (the working directory of `npm start`). */
  @IsString()
  @MinLength(1)
  CLOUD_DRIVE_LOCAL_ROOT = 'var/drive';

  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(3600)
  CLOUD_DRIVE_SETTLE_SECONDS = DEFAULT_SETTLE_SECONDS;

  @IsUrl(URL_OPTIONS)
  CLOUD_DRIVE_API_URL: string = GOOGLE_DEFAULTS.apiUrl;

  @IsUrl(URL_OPTIONS)
  CLOUD_DRIVE_OAUTH_AUTH_URL: string = GOOGLE_DEFAULTS.authUrl;

  @IsUrl(URL_OPTIONS)
  CLOUD_DRIVE_OAUTH_TOKEN_URL: string = GOOGLE_DEFAULTS.tokenUrl;

  /** Checked only with `google` (ValidateIf skips the other checks otherwise). */
  @ValidateIf(needsGoogle)
  @IsString({ message: 'CLOUD_DRIVE_CLIENT_ID is required with CLOUD_DRIVE_PROVIDER=google' })
  @MinLength(1)
  CLOUD_DRIVE_CLIENT_ID?: string;

  @ValidateIf(needsGoogle)
  @IsString({ message: 'CLOUD_DRIVE_CLIENT_SECRET is required with CLOUD_DRIVE_PROVIDER=google' })
  @MinLength(1)
  CLOUD_DRIVE_CLIENT_SECRET?: string;
}

export type CloudDriveSettings = Pick<
  CloudDriveConfig,
  'CLOUD_DRIVE_PROVIDER' | 'CLOUD_DRIVE_LOCAL_ROOT' | 'CLOUD_DRIVE_API_URL' | 'CLOUD_DRIVE_OAUTH_AUTH_URL' | 'CLOUD_DRIVE_OAUTH_TOKEN_URL' | 'CLOUD_DRIVE_CLIENT_ID' | 'CLOUD_DRIVE_CLIENT_SECRET'
>;

/** The absolute local root: CLOUD_DRIVE_LOCAL_ROOT against `projectRoot` (default the working directory). */
export function localDriveRoot(settings: Pick<CloudDriveConfig, 'CLOUD_DRIVE_LOCAL_ROOT'>, projectRoot = process.cwd()): string {
  return path.resolve(projectRoot, settings.CLOUD_DRIVE_LOCAL_ROOT);
}

export interface DriveProviderDeps {
  logger: Logger;
  /** Where local watches deliver notifications (the public API's push handler). */
  onNotification(notification: DriveNotification): void;
  /** Needed with `google`: where grants live and how tokens are sealed. */
  grants?: DriveGrantStore;
  sealer?: DriveTokenSealer;
  projectRoot?: string;
}

/** The provider CLOUD_DRIVE_PROVIDER names, as the public API uses it. */
export function createDriveProvider(settings: CloudDriveSettings, deps: DriveProviderDeps): DriveProvider {
  switch (settings.CLOUD_DRIVE_PROVIDER) {
    case 'local':
      return new LocalDriveProvider({ root: localDriveRoot(settings, deps.projectRoot), onNotification: deps.onNotification, logger: deps.logger });
    case 'google': {
      if (!deps.grants || !deps.sealer) throw new Error('The google drive provider needs a grant store and a token sealer');
      if (!settings.CLOUD_DRIVE_CLIENT_ID || !settings.CLOUD_DRIVE_CLIENT_SECRET) throw new Error('CLOUD_DRIVE_CLIENT_ID and CLOUD_DRIVE_CLIENT_SECRET are required with CLOUD_DRIVE_PROVIDER=google');
      return new GoogleDriveProvider({
        apiUrl: settings.CLOUD_DRIVE_API_URL,
        authUrl: settings.CLOUD_DRIVE_OAUTH_AUTH_URL,
        tokenUrl: settings.CLOUD_DRIVE_OAUTH_TOKEN_URL,
        clientId: settings.CLOUD_DRIVE_CLIENT_ID,
        clientSecret: settings.CLOUD_DRIVE_CLIENT_SECRET,
        grants: deps.grants,
        sealer: deps.sealer,
        logger: deps.logger,
      });
    }
  }
}
