import { LocalDiskDriver } from './local-disk-driver';
import { S3Driver, type S3StorageOptions } from './s3-driver';
import type { StorageDriver } from './storage-driver';

export type StorageConfig = { driver: 'local'; /** STORAGE_DIR, e.g. `./var/storage`. */ rootDir: string } | ({ driver: 's3' } & S3StorageOptions);

/** The storage driver a service's config names. */
export function createStorage(config: StorageConfig): StorageDriver {
  switch (config.driver) {
    case 'local':
      return new LocalDiskDriver(config.rootDir);
    case 's3': {
      const { driver: _driver, ...options } = config;
      return new S3Driver(options);
    }
    default: {
      const unknown: never = config;
      throw new Error(`unknown storage driver ${JSON.stringify(unknown)}`);
    }
  }
}
