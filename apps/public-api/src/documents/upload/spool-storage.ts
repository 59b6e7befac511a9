import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import type { Request } from 'express';
import type multer from 'multer';

/** Bytes all requests together may hold in memory; past it, small files go to disk too. */
export class MemoryBudget {
  private used = 0;

  constructor(readonly limitBytes: number) {}

  take(bytes: number): boolean {
    if (this.used + bytes > this.limitBytes) return false;
    this.used += bytes;
    return true;
  }

  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get usedBytes(): number {
    return this.used;
  }
}

export interface SpoolOptions {
  tempDir: string;
  /** Files up to this size stay in memory (while the budget allows); larger ones go to a temp file. */
  memoryFileBytes: number;
  budget: MemoryBudget;
}

/**
 * Collects one upload: in memory while it is small, else spilled (what was
 * held, then the rest) to a temp file in tempDir, never as a whole file in
 * memory. Memory is given back to the budget when the response closes.
 */
class SpoolSink extends Writable {
  private chunks: Buffer[] = [];
  private held = 0;
  private file: WriteStream | undefined;
  size = 0;

  constructor(
    private readonly options: SpoolOptions,
    private readonly onSpill: (path: string) => void,
  ) {
    super();
  }

  get heldBytes(): number {
    return this.held;
  }

  get buffer(): Buffer | undefined {
    return this.file ? undefined : Buffer.concat(this.chunks, this.held);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.size += chunk.length;
    if (!this.file) {
      if (this.size <= this.options.memoryFileBytes && this.options.budget.take(chunk.length)) {
        this.chunks.push(chunk);
        this.held += chunk.length;
        callback();
        return;
      }
      this.spill().then(() => this.writeToFile(chunk, callback), callback);
      return;
    }
    this.writeToFile(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.file) return callback();
    this.file.end((err?: Error | null) => callback(err));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.file?.destroy();
    callback(error);
  }

  /** Gives the held bytes back to the budget (once). */
  releaseMemory(): void {
    this.options.budget.release(this.held);
    this.held = 0;
    this.chunks = [];
  }

  private async spill(): Promise<void> {
    await mkdir(this.options.tempDir, { recursive: true, mode: 0o700 });
    const target = path.join(this.options.tempDir, `${randomUUID()}.upload`);
    this.file = createWriteStream(target, { flags: 'wx', mode: 0o600 });
    this.file.once('error', (err) => this.destroy(err));
    this.onSpill(target);
    for (const held of this.chunks) this.file.write(held);
    this.releaseMemory();
  }

  private writeToFile(chunk: Buffer, callback: (error?: Error | null) => void): void {
    const file = this.file;
    if (!file) return callback(new Error('spool file missing'));
    if (file.write(chunk)) callback();
    else file.once('drain', () => callback());
  }
}

/** A multer storage engine over SpoolSink: `file.buffer` for small files, `file.path` for the others. */
export class SpoolStorage implements multer.StorageEngine {
  constructor(private readonly options: SpoolOptions) {}

  _handleFile(req: Request, file: Express.Multer.File, callback: (error?: unknown, info?: Partial<Express.Multer.File>) => void): void {
    const sink = new SpoolSink(this.options, (spilled) => {
      // Known to multer at once, so an aborted upload's partial file is removed.
      file.path = spilled;
    });
    req.res?.once('close', () => sink.releaseMemory());
    pipeline(file.stream, sink).then(
      () => {
        const buffer = sink.buffer;
        callback(null, buffer ? { buffer, size: sink.size } : { path: file.path, size: sink.size });
      },
      (err: unknown) => {
        sink.releaseMemory();
        callback(err);
      },
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, callback: (error: Error | null) => void): void {
    if (!file.path) return callback(null);
    rm(file.path, { force: true }).then(
      () => callback(null),
      (err: Error) => callback(err),
    );
  }
}
