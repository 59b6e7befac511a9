import { loadConfig } from '@docflow/service-kit';
import { TEST_SECRETS } from '@docflow/testing';
import { PublicApiConfig } from '../platform';
import { signedUrlSecret, storageConfigOf } from './storage-from-config';

describe('storage configuration', () => {
  it('defaults to the local driver under ./var/storage with the documented limits', () => {
    const config = loadConfig(PublicApiConfig, { ...TEST_SECRETS });
    expect(storageConfigOf(config)).toEqual({ driver: 'local', rootDir: './var/storage' });
    expect([config.UPLOAD_MAX_FILE_SIZE_MB, config.STORAGE_QUOTA_MB, config.SIGNED_URL_TTL_SECONDS, config.DOCX_CONVERSION_TIMEOUT_SECONDS]).toEqual([50, 1024, 3600, 120]);
  });

  it('builds the S3 settings, and requires a bucket for them', () => {
    const config = loadConfig(PublicApiConfig, {
      ...TEST_SECRETS,
      STORAGE_DRIVER: 's3',
      S3_BUCKET: 'docs',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
    });
    expect(storageConfigOf(config)).toEqual({
      driver: 's3',
      bucket: 'docs',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(() => loadConfig(PublicApiConfig, { STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig(PublicApiConfig, { S3_ACCESS_KEY_ID: 'id' })).toThrow(/S3_SECRET_ACCESS_KEY/);
  });

  it('derives the signed-URL key from JWT_SECRET unless SIGNED_URL_SECRET is set', () => {
    const a = signedUrlSecret({ JWT_SECRET: 'jwt-secret-one-0123456789' });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(signedUrlSecret({ JWT_SECRET: 'jwt-secret-one-0123456789' })).toBe(a);
    expect(signedUrlSecret({ JWT_SECRET: 'jwt-secret-two-0123456789' })).not.toBe(a);
    expect(a).not.toContain('jwt-secret');
    expect(signedUrlSecret({ JWT_SECRET: 'x', SIGNED_URL_SECRET: 'explicit-secret-0123' })).toBe('explicit-secret-0123');
  });
});
