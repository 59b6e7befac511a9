import { createHash, randomUUID } from 'node:crypto';
import { constants as fsConstants, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { access, mkdir, open, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { HealthCheck } from '@docflow/service-kit';
import { StorageKeyError, StorageObjectNotFoundError, StoragePayloadTooLargeError, storageWriteError } from './errors';
import { assertValidKey } from './keys';
import { checkMaxBytes, MeasuringStream, releaseSource, toReadable } from './measure';
import type { PutOptions, PutResult, StorageDriver, StoredObjectInfo } from './storage-driver';

function errnoCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

const MISSING = new Set(['ENOENT', 'ENOTDIR']);

/**
 * Stores objects as files under rootDir, one file per key (`yyyy/mm/<uuid>`).
 * Writes go to a hidden temp file in the target directory, are fsynced, then
 * renamed over the target, so a reader never sees a partial file and a failed
 * write leaves nothing. Temp names start with a dot, which no valid key can.
 *
 * Durability: the one fsync of the temp file before the rename is what the
 * atomic rename needs (without it a crash could publish a renamed but empty
 * file). The directory entry itself is not fsynced, as before: after a crash
 * the newest objects may be missing, never partial.
 */
export class LocalDiskDriver implements StorageDriver {
  readonly kind = 'local' as const;
  readonly rootDir: string;
  /** Directories this driver created or found (keys share a `yyyy/mm` directory): one mkdir each, not one per put. */
  private readonly knownDirs = new Set<string>();

  constructor(rootDir: string) {
    this.rootDir = path.resolve(rootDir);
  }

  /**
   * The absolute file path of key (validated; it may not exist). For callers
   * that need a real file, such as a document converter.
   */
  pathOf(key: string): string {
    assertValidKey(key);
    const resolved = path.resolve(this.rootDir, ...key.split('/'));
    if (!resolved.startsWith(this.rootDir + path.sep)) throw new StorageKeyError('key resolves outside the storage root');
    return resolved;
  }

  async put(key: string, source: Buffer | Readable, options: PutOptions = {}): Promise<PutResult> {
    try {
      return await this.write(key, source, options);
    } catch (err) {
      releaseSource(source);
      throw storageWriteError(err);
    }
  }

  private async write(key: string, source: Buffer | Readable, options: PutOptions): Promise<PutResult> {
    checkMaxBytes(options.maxBytes);
    const target = this.pathOf(key);
    if (Buffer.isBuffer(source)) return this.writeBuffer(key, target, source, options.maxBytes);
    const input = toReadable(source, options.maxBytes);
    const dir = path.dirname(target);
    await mkdir(dir, { recursive: true });
    const temp = path.join(dir, `.${path.basename(target)}.${randomUUID()}.tmp`);
    const meter = new MeasuringStream(options.maxBytes);
    // flush: fsync before close, so the rename below never publishes unsynced data.
    const file = createWriteStream(temp, { flags: 'wx', mode: 0o640, flush: true });
    try {
      // Wait for the file to exist before anything can fail, so cleanup always finds it.
      await once(file, 'open');
      await pipeline(input, meter, file);
      if (!file.closed) await once(file, 'close');
      await rename(temp, target);
    } catch (err) {
      file.destroy();
      if (!file.closed) await once(file, 'close').catch(() => undefined);
      await rm(temp, { force: true });
      throw err;
    }
    return { key, size: meter.size, sha256: meter.digest() };
  }

  /**
   * A buffer (an upload held in memory) without streams: open, one write,
   * fsync, close, rename, and the hash in one update: ~0.4 ms of user CPU less
   * per 100 KB put than piping it through MeasuringStream into a write stream.
   * (Creating the file costs ~1 ms of kernel CPU on the ext4 volume measured,
   * and the fsync ~0.25 ms: both stay, one each per object.)
   */
  private async writeBuffer(key: string, target: string, content: Buffer, maxBytes: number | undefined): Promise<PutResult> {
    if (maxBytes !== undefined && content.length > maxBytes) throw new StoragePayloadTooLargeError(maxBytes);
    const dir = path.dirname(target);
    const temp = path.join(dir, `.${path.basename(target)}.${randomUUID()}.tmp`);
    const file = await this.createIn(dir, temp);
    try {
      try {
        await file.writeFile(content);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return { key, size: content.length, sha256: createHash('sha256').update(content).digest('hex') };
  }

  /** Creates temp (exclusively) in dir, making dir first when it is not known to exist or has gone since. */
  private async createIn(dir: string, temp: string): Promise<FileHandle> {
    if (this.knownDirs.has(dir)) {
      try {
        return await open(temp, 'wx', 0o640);
      } catch (err) {
        if (errnoCode(err) !== 'ENOENT') throw err;
        this.knownDirs.delete(dir);
      }
    }
    await mkdir(dir, { recursive: true });
    this.knownDirs.add(dir);
    return open(temp, 'wx', 0o640);
  }

  async get(key: string): Promise<Readable> {
    const file = this.pathOf(key);
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (err) {
      if (MISSING.has(errnoCode(err) ?? '')) throw new StorageObjectNotFoundError(key);
      throw err;
    }
    const info = await handle.stat().catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    if (!info.isFile()) {
      await handle.close();
      throw new StorageObjectNotFoundError(key);
    }
    return handle.createReadStream();
  }

  async stat(key: string): Promise<StoredObjectInfo> {
    const file = this.pathOf(key);
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new StorageObjectNotFoundError(key);
      return { key, size: info.size, lastModified: info.mtime };
    } catch (err) {
      if (MISSING.has(errnoCode(err) ?? '')) throw new StorageObjectNotFoundError(key);
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await unlink(file);
    } catch (err) {
      if (MISSING.has(errnoCode(err) ?? '')) return;
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
        await mkdir(this.rootDir, { recursive: true });
        await access(this.rootDir, fsConstants.R_OK | fsConstants.W_OK);
      },
    };
  }
}
