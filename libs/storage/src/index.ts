export * from './storage-driver';
export * from './errors';
export { generateKey, assertValidKey, isValidKey, keyProblem } from './keys';
export { LocalDiskDriver } from './local-disk-driver';
export { S3Driver, createS3Client, type S3StorageOptions } from './s3-driver';
export { createStorage, type StorageConfig } from './create-storage';
export { signUrl, verifySignedUrl, type SignUrlOptions, type SignedUrlVerdict } from './signed-url';
