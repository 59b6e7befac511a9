import { hkdfSync } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createStorage, type StorageConfig, type StorageDriver } from '@docflow/storage';
import type { PublicApiConfig } from '../platform';

export type StorageSettings = Pick<
  PublicApiConfig,
  'STORAGE_DRIVER' | 'STORAGE_DIR' | 'S3_BUCKET' | 'S3_REGION' | 'S3_ENDPOINT' | 'S3_FORCE_PATH_STYLE' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_PREFIX'
>;

/** What createStorage needs, read from the public API's config. */
export function storageConfigOf(config: StorageSettings): StorageConfig {
  switch (config.STORAGE_DRIVER) {
    case 'local':
      return { driver: 'local', rootDir: config.STORAGE_DIR };
    case 's3':
      return {
        driver: 's3',
        bucket: config.S3_BUCKET ?? '',
        ...(config.S3_REGION ? { region: config.S3_REGION } : {}),
        ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
        forcePathStyle: config.S3_FORCE_PATH_STYLE,
        ...(config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY ? { credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } } : {}),
        ...(config.S3_PREFIX ? { prefix: config.S3_PREFIX } : {}),
      };
    default: {
      const unknown: never = config.STORAGE_DRIVER;
      throw new Error(`unknown STORAGE_DRIVER ${String(unknown)}`);
    }
  }
}

/** The storage driver STORAGE_DRIVER names (local disk under STORAGE_DIR by default). */
export function createStorageFromConfig(config: StorageSettings): StorageDriver {
  return createStorage(storageConfigOf(config));
}

/** Where multipart uploads are spooled before they are checked and stored. */
export function uploadTempDir(config: Pick<PublicApiConfig, 'UPLOAD_TMP_DIR'>): string {
  return path.resolve(config.UPLOAD_TMP_DIR ?? path.join(os.tmpdir(), 'docflow-uploads'));
}

const SIGNED_URL_INFO = 'docflow signed download urls v1';

/**
 * The HMAC key of signed download URLs: SIGNED_URL_SECRET when set, else a key
 * derived from JWT_SECRET with HKDF-SHA256, so that no extra secret has to be
 * provisioned and a signed URL can never be replayed as (or forged from) a token.
 */
export function signedUrlSecret(config: Pick<PublicApiConfig, 'SIGNED_URL_SECRET' | 'JWT_SECRET'>): string {
  if (config.SIGNED_URL_SECRET) return config.SIGNED_URL_SECRET;
  return Buffer.from(hkdfSync('sha256', config.JWT_SECRET, 'docflow', SIGNED_URL_INFO, 32)).toString('hex');
}
