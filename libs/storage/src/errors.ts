import { AppError, BadRequestError, NotFoundError, PayloadTooLargeError } from '@docflow/service-kit';

/** A key that is not one generateKey() could have produced (traversal, absolute, odd characters). */
export class StorageKeyError extends BadRequestError {
  constructor(reason: string) {
    super('Invalid storage key', { errors: [reason] });
  }
}

export class StorageObjectNotFoundError extends NotFoundError {
  constructor(readonly key: string) {
    super('Stored file not found');
  }
}

export class StoragePayloadTooLargeError extends PayloadTooLargeError {
  constructor(readonly maxBytes: number) {
    super(`File is larger than ${maxBytes} bytes`, { maxBytes });
  }
}

/**
 * The storage volume has no room (ENOSPC, or EDQUOT for a filesystem quota):
 * 507 Insufficient Storage. The write that met it has been removed, so
 * nothing half-written stays behind, and callers release what they reserved.
 */
export class StorageFullError extends AppError {
  constructor() {
    super(507, 'InsufficientStorageError', 'The storage volume is full; try again later', {}, 'insufficient_storage');
  }
}

/** The error to throw for a failed write: StorageFullError for a full volume, else the error itself. */
export function storageWriteError(err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' ? new StorageFullError() : err;
}
