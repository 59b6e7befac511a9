import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { StorageKeyError, StorageObjectNotFoundError, StoragePayloadTooLargeError } from './errors';
import { generateKey } from './keys';
import { LocalDiskDriver } from './local-disk-driver';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every file under dir, relative, hidden ones included. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/** Emits `goodChunks` chunks of 1 KiB, then fails. */
function failingStream(goodChunks: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent < goodChunks) {
        sent += 1;
        this.push(Buffer.alloc(1024, 0x61));
      } else {
        this.destroy(new Error('client went away'));
      }
    },
  });
}

describe('LocalDiskDriver', () => {
  let root: string;
  let driver: LocalDiskDriver;

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docflow-storage-'));
    driver = new LocalDiskDriver(root);
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('stores a buffer under its key and reports size and sha256', async () => {
    const key = generateKey('txt');
    const content = Buffer.from('hello storage\n');
    const result = await driver.put(key, content);
    expect(result).toEqual({ key, size: 14, sha256: createHash('sha256').update(content).digest('hex') });
    expect(await readFile(path.join(root, key))).toEqual(content);
    expect(await filesUnder(root)).toEqual([key]);
  });

  it('makes the key directory again when it was removed after an earlier put', async () => {
    const first = generateKey('txt');
    await driver.put(first, Buffer.from('first'));
    await rm(path.dirname(path.join(root, first)), { recursive: true });
    const second = generateKey('txt');
    await driver.put(second, Buffer.from('second'));
    expect(await readFile(path.join(root, second), 'utf8')).toBe('second');
    expect(await filesUnder(root)).toEqual([second]);
  });

  it('replaces an existing object with a buffer and leaves no temp file', async () => {
    const key = generateKey('txt');
    await driver.put(key, Buffer.from('old content'));
    const result = await driver.put(key, Buffer.from('new'));
    expect(result.size).toBe(3);
    expect(await readFile(path.join(root, key), 'utf8')).toBe('new');
    expect(await filesUnder(root)).toEqual([key]);
  });

  it('stores a stream and reads it back', async () => {
    const key = generateKey();
    const parts = [Buffer.from('abc'), Buffer.from('def'), Buffer.alloc(70_000, 7)];
    const result = await driver.put(key, Readable.from(parts), { maxBytes: 70_006 });
    expect(result.size).toBe(70_006);
    expect(await readAll(await driver.get(key))).toEqual(Buffer.concat(parts));
    const info = await driver.stat(key);
    expect(info.size).toBe(70_006);
    expect(Math.abs(info.lastModified.getTime() - Date.now())).toBeLessThan(60_000);
    expect(await driver.exists(key)).toBe(true);
  });

  it('leaves no file and no temp file when the source fails halfway', async () => {
    const key = generateKey('bin');
    await expect(driver.put(key, failingStream(40))).rejects.toThrow('client went away');
    expect(await filesUnder(root)).toEqual([]);
    expect(await driver.exists(key)).toBe(false);
  });

  it('keeps the previous object when a replacement fails halfway', async () => {
    const key = generateKey('bin');
    await driver.put(key, Buffer.from('original'));
    await expect(driver.put(key, failingStream(3))).rejects.toThrow('client went away');
    expect(await readFile(path.join(root, key), 'utf8')).toBe('original');
    expect(await filesUnder(root)).toEqual([key]);
  });

  it('refuses a stream over maxBytes with a 413 error and leaves nothing', async () => {
    const key = generateKey('bin');
    const source = Readable.from([Buffer.alloc(600, 1), Buffer.alloc(600, 2)]);
    const err = await driver.put(key, source, { maxBytes: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoragePayloadTooLargeError);
    expect((err as StoragePayloadTooLargeError).status).toBe(413);
    expect(await filesUnder(root)).toEqual([]);
    expect(source.destroyed).toBe(true);
  });

  it('refuses a buffer over maxBytes before writing anything', async () => {
    await expect(driver.put(generateKey(), Buffer.alloc(11), { maxBytes: 10 })).rejects.toBeInstanceOf(StoragePayloadTooLargeError);
    expect(await readdir(root)).toEqual([]);
  });

  it('accepts content of exactly maxBytes', async () => {
    const result = await driver.put(generateKey(), Readable.from([Buffer.alloc(5), Buffer.alloc(5)]), { maxBytes: 10 });
    expect(result.size).toBe(10);
  });

  it('throws NotFound for a missing key on get and stat', async () => {
    const key = generateKey();
    await expect(driver.get(key)).rejects.toBeInstanceOf(StorageObjectNotFoundError);
    await expect(driver.stat(key)).rejects.toBeInstanceOf(StorageObjectNotFoundError);
    expect(await driver.exists(key)).toBe(false);
  });

  it('treats a directory as missing', async () => {
    await mkdir(path.join(root, '2026', '05'), { recursive: true });
    await expect(driver.get('2026/05')).rejects.toBeInstanceOf(StorageObjectNotFoundError);
    expect(await driver.exists('2026')).toBe(false);
  });

  it('deletes idempotently', async () => {
    const key = generateKey();
    await driver.put(key, Buffer.from('x'));
    await driver.delete(key);
    await driver.delete(key);
    expect(await driver.exists(key)).toBe(false);
  });

  it('refuses traversal keys on every operation without touching the disk', async () => {
    const outside = path.join(path.dirname(root), `${path.basename(root)}-outside.txt`);
    await writeFile(outside, 'secret');
    try {
      const escape = `../${path.basename(outside)}`;
      await expect(driver.put(escape, Buffer.from('overwrite'))).rejects.toBeInstanceOf(StorageKeyError);
      await expect(driver.get(escape)).rejects.toBeInstanceOf(StorageKeyError);
      await expect(driver.stat(escape)).rejects.toBeInstanceOf(StorageKeyError);
      await expect(driver.delete(escape)).rejects.toBeInstanceOf(StorageKeyError);
      await expect(driver.exists(escape)).rejects.toBeInstanceOf(StorageKeyError);
      await expect(driver.get('/etc/passwd')).rejects.toBeInstanceOf(StorageKeyError);
      expect(await readFile(outside, 'utf8')).toBe('secret');
      expect(await readdir(root)).toEqual([]);
    } finally {
      await rm(outside, { force: true });
    }
  });

  it('refuses a traversal key given with a stream and releases the stream', async () => {
    const source = Readable.from([Buffer.from('x')]);
    await expect(driver.put('../x', source)).rejects.toBeInstanceOf(StorageKeyError);
    expect(source.destroyed).toBe(true);
  });

  it('reports a healthy, writable root', async () => {
    await expect(driver.healthCheck().check()).resolves.toBeUndefined();
  });
});
