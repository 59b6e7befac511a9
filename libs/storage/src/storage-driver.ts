import type { Readable } from 'node:stream';
import type { HealthCheck } from '@docflow/service-kit';

export interface PutOptions {
  /** Refuse (and leave nothing behind) when the content is larger than this many bytes. */
  maxBytes?: number;
  /** Recorded by drivers that keep a content type (S3); the local driver ignores it. */
  contentType?: string;
}

export interface PutResult {
  key: string;
  /** Bytes stored. */
  size: number;
  /** Lower-case hex SHA-256 of the stored bytes. */
  sha256: string;
}

export interface StoredObjectInfo {
  key: string;
  size: number;
  lastModified: Date;
  /** Known only to drivers that keep it (S3). */
  contentType?: string;
}

/**
 * Object storage for uploaded files. Keys come from generateKey() (never from a
 * client's filename) and are validated by every driver against traversal.
 */
export interface StorageDriver {
  readonly kind: 'local' | 's3';
  /**
   * Stores the content under key, atomically: either the whole object is stored
   * or nothing is (on a source error or when maxBytes is exceeded, which throws
   * StoragePayloadTooLargeError). An existing object under key is replaced.
   */
  put(key: string, source: Buffer | Readable, options?: PutOptions): Promise<PutResult>;
  /** Opens the object for reading; throws StorageObjectNotFoundError when missing. */
  get(key: string): Promise<Readable>;
  /** Throws StorageObjectNotFoundError when missing. */
  stat(key: string): Promise<StoredObjectInfo>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Usable as a service health check (the storage is reachable and writable). */
  healthCheck(): HealthCheck;
}
