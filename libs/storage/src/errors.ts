import { BadRequestError, NotFoundError, PayloadTooLargeError } from '@docflow/service-kit';

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
