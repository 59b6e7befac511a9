import type { Readable } from 'node:stream';
import { LocalDiskDriver, type StorageDriver } from '@docflow/storage';
import type { Logger } from '@docflow/service-kit';
import { errorMessage } from '@docflow/service-kit';

/**
 * Removes stored objects whose rows are gone. A failure leaves an orphan file
 * (logged with its key), never a row pointing at a missing file.
 */
export async function removeStoredObjects(storage: StorageDriver, keys: string[], logger: Logger): Promise<void> {
  await Promise.all(
    keys.map((key) =>
      storage.delete(key).catch((err: unknown) => {
        logger.warn('stored file could not be removed', { key, error: errorMessage(err) });
      }),
    ),
  );
}

/** A readable copy of an object for tools that want a path (local disk) or bytes (other drivers), at most maxBytes. */
export async function readStoredObject(storage: StorageDriver, key: string, maxBytes: number): Promise<string | Buffer> {
  if (storage instanceof LocalDiskDriver) return storage.pathOf(key);
  const stream: Readable = await storage.get(key);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new Error(`stored object ${key} is larger than ${maxBytes} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}
