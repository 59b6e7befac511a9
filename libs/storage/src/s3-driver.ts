import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { HealthCheck } from '@docflow/service-kit';
import { StorageKeyError, StorageObjectNotFoundError, StoragePayloadTooLargeError } from './errors';
import { assertValidKey, keyProblem } from './keys';
import { checkMaxBytes, MeasuringStream, releaseSource, toReadable } from './measure';
import type { PutOptions, PutResult, StorageDriver, StoredObjectInfo } from './storage-driver';

export interface S3StorageOptions {
  bucket: string;
  region?: string;
  /** For S3-compatible stores (MinIO, Ceph, ...), e.g. `http://127.0.0.1:9000`. */
  endpoint?: string;
  /** `http://endpoint/bucket/key` instead of `http://bucket.endpoint/key`; most S3-compatible stores need it. */
  forcePathStyle?: boolean;
  /** Static credentials; when absent the SDK's default provider chain is used. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Prepended to every key, e.g. `documents` (a valid key, without trailing slash). */
  prefix?: string;
  /** Multipart part size in bytes (at least 5 MiB); smaller objects go up in one PUT. */
  partSizeBytes?: number;
  /** A ready client (tests, custom middleware); the connection options above are then ignored. */
  client?: S3Client;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;

interface SdkErrorShape {
  name?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

function isNotFound(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as SdkErrorShape;
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

export function createS3Client(options: S3StorageOptions): S3Client {
  const config: S3ClientConfig = {
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle ?? false,
    // Checksums only where S3 requires them: S3-compatible stores often reject
    // the streaming (aws-chunked) trailer checksums the SDK sends by default.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
  if (options.endpoint !== undefined) config.endpoint = options.endpoint;
  if (options.credentials !== undefined) config.credentials = options.credentials;
  return new S3Client(config);
}

/**
 * Objects in one S3 bucket (AWS or S3-compatible). A put streams through a
 * byte counter and SHA-256 hash into a lib-storage Upload: one PutObject for
 * small objects (buffered up to the part size, so a failed or oversized source
 * sends nothing), multipart above that, aborted on error so no parts remain.
 */
export class S3Driver implements StorageDriver {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly partSize: number;

  constructor(options: S3StorageOptions) {
    if (!options.bucket) throw new Error('S3 storage needs a bucket');
    if (options.prefix !== undefined && keyProblem(options.prefix) !== undefined) {
      throw new StorageKeyError(`prefix: ${keyProblem(options.prefix) ?? ''}`);
    }
    this.bucket = options.bucket;
    this.prefix = options.prefix ? `${options.prefix}/` : '';
    this.partSize = Math.max(MIN_PART_SIZE, options.partSizeBytes ?? MIN_PART_SIZE);
    this.client = options.client ?? createS3Client(options);
  }

  private objectKey(key: string): string {
    assertValidKey(key);
    return `${this.prefix}${key}`;
  }

  async put(key: string, source: Buffer | Readable, options: PutOptions = {}): Promise<PutResult> {
    let meter: MeasuringStream | undefined;
    try {
      checkMaxBytes(options.maxBytes);
      const objectKey = this.objectKey(key);
      const input = toReadable(source, options.maxBytes);
      const counter = new MeasuringStream(options.maxBytes);
      meter = counter;
      input.on('error', (err) => counter.destroy(err));
      const body = input.pipe(counter);
      const upload = new Upload({
        client: this.client,
        params: {
          Bucket: this.bucket,
          Key: objectKey,
          Body: body,
          ...(options.contentType !== undefined ? { ContentType: options.contentType } : {}),
        },
        partSize: this.partSize,
        queueSize: 1,
        leavePartsOnError: false,
      });
      await upload.done();
      return { key, size: counter.size, sha256: counter.digest() };
    } catch (err) {
      releaseSource(source);
      // The SDK may wrap the body's error; report the size limit as such.
      if (meter?.errored instanceof StoragePayloadTooLargeError) throw meter.errored;
      throw err;
    }
  }

  async get(key: string): Promise<Readable> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      if (out.Body instanceof Readable) return out.Body;
      throw new Error('S3 GetObject returned no readable body');
    } catch (err) {
      if (isNotFound(err)) throw new StorageObjectNotFoundError(key);
      throw err;
    }
  }

  async stat(key: string): Promise<StoredObjectInfo> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return {
        key,
        size: out.ContentLength ?? 0,
        lastModified: out.LastModified ?? new Date(0),
        ...(out.ContentType !== undefined ? { contentType: out.ContentType } : {}),
      };
    } catch (err) {
      if (isNotFound(err)) throw new StorageObjectNotFoundError(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.stat(key);
      return true;
    } catch (err) {
      if (err instanceof StorageObjectNotFoundError) return false;
      throw err;
    }
  }

  healthCheck(): HealthCheck {
    return {
      name: 'storage',
      check: async () => {
        await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      },
    };
  }
}
