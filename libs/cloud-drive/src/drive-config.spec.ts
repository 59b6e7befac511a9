import { ConfigError, loadConfig, silentLogger } from '@docflow/service-kit';
import { CloudDriveConfig, createDriveProvider, localDriveRoot } from './drive-config';

describe('CloudDriveConfig', () => {
  it('defaults to the local provider under var/drive with a 5 second settle time', () => {
    const config = loadConfig(CloudDriveConfig, {});
    expect(config).toMatchObject({ CLOUD_DRIVE_PROVIDER: 'local', CLOUD_DRIVE_LOCAL_ROOT: 'var/drive', CLOUD_DRIVE_SETTLE_SECONDS: 5, CLOUD_DRIVE_API_URL: 'https://www.googleapis.com' });
    expect(localDriveRoot(config, '/srv/docflow')).toBe('/srv/docflow/var/drive');
    expect(createDriveProvider(config, { logger: silentLogger, onNotification: () => undefined, projectRoot: '/srv/docflow' }).kind).toBe('local');
  });

  it('needs the OAuth client with the google provider, and names what is missing', () => {
    expect(() => loadConfig(CloudDriveConfig, { CLOUD_DRIVE_PROVIDER: 'google' })).toThrow(ConfigError);
    expect(() => loadConfig(CloudDriveConfig, { CLOUD_DRIVE_PROVIDER: 'google', CLOUD_DRIVE_CLIENT_ID: 'id' })).toThrow(/CLOUD_DRIVE_CLIENT_SECRET is required/);
    const config = loadConfig(CloudDriveConfig, { CLOUD_DRIVE_PROVIDER: 'google', CLOUD_DRIVE_CLIENT_ID: 'id', CLOUD_DRIVE_CLIENT_SECRET: 'secret', CLOUD_DRIVE_API_URL: 'http://127.0.0.1:9/' });
    expect(config.CLOUD_DRIVE_API_URL).toBe('http://127.0.0.1:9/');
  });

  it('refuses an unknown provider and a settle time out of range', () => {
    expect(() => loadConfig(CloudDriveConfig, { CLOUD_DRIVE_PROVIDER: 'dropbox' })).toThrow(/CLOUD_DRIVE_PROVIDER/);
    expect(() => loadConfig(CloudDriveConfig, { CLOUD_DRIVE_SETTLE_SECONDS: '-1' })).toThrow(/CLOUD_DRIVE_SETTLE_SECONDS/);
  });
});
