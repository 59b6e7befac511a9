import { createHash, type Hash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { StoragePayloadTooLargeError } from './errors';

/**
 * Passes bytes through while counting them and hashing them with SHA-256;
 * fails the stream with StoragePayloadTooLargeError as soon as more than
 * maxBytes have gone by.
 */
export class MeasuringStream extends Transform {
  private readonly hash: Hash = createHash('sha256');
  private count = 0;

  constructor(private readonly maxBytes?: number) {
    super();
  }

  override _transform(chunk: Buffer | string, _enc: BufferEncoding, callback: TransformCallback): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.count += buf.length;
    if (this.maxBytes !== undefined && this.count > this.maxBytes) {
      callback(new StoragePayloadTooLargeError(this.maxBytes));
      return;
    }
    this.hash.update(buf);
    callback(null, buf);
  }

  get size(): number {
    return this.count;
  }

  /** Hex digest; call once, after the stream has ended. */
  digest(): string {
    return this.hash.digest('hex');
  }
}

export function checkMaxBytes(maxBytes: number | undefined): void {
  if (maxBytes !== undefined && (!Number.isInteger(maxBytes) || maxBytes < 0)) {
    throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
  }
}

/** A Buffer source as a stream, refusing it up front when it is already too large. */
export function toReadable(source: Buffer | Readable, maxBytes: number | undefined): Readable {
  if (Buffer.isBuffer(source)) {
    if (maxBytes !== undefined && source.length > maxBytes) throw new StoragePayloadTooLargeError(maxBytes);
    return Readable.from([source]);
  }
  return source;
}

/** Stops a caller's stream that a failed put will no longer read (an upload, say). */
export function releaseSource(source: Buffer | Readable): void {
  if (!Buffer.isBuffer(source) && !source.destroyed) source.destroy();
}
