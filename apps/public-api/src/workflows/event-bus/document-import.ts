import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DocumentImportResponse, DocumentImportSource } from '@docflow/contracts';
import { type Logger, NotFoundError, PayloadTooLargeError } from '@docflow/service-kit';
import type { PublicApiDatabase } from '../../platform';
import { DocumentImportsRepository } from './document-imports.repository';
import { type DocumentRecord, type DocumentsService, MemoryBudget, type TextExtractionRunner, type UploadService } from '../../documents';
import type { UserRole, UsersService } from '../../identity';

export interface ImportRequest {
  userId: number;
  fileName: string;
  /** The type the drive or the mail gave; the upload checks the content. */
  contentType: string;
  content: Readable;
  source: DocumentImportSource;
  sourceRef?: string;
  /** The same key for the same user answers the document the first import stored. */
  idempotencyKey?: string;
  /**
   * No import with this idempotency key can have finished before (the first
   * attempt of its only caller): the lookup is skipped. The key still holds:
   * an import that recorded it meanwhile keeps its document, not two.
   */
  firstAttempt?: boolean;
  /**
   * Record the idempotency key later, with the other imports of a batch
   * (`recordPending`, one statement): the import is added to this list
   * instead of being recorded now. Its text extraction waits for the record.
   */
  recordLater?: PendingImport[];
  /** The user `userId` names, when the caller has just read it (saves a lookup). */
  user?: { id: number; role: UserRole };
}

/** An import whose idempotency key is not recorded yet (ImportRequest.recordLater). */
export interface PendingImport {
  userId: number;
  key: string;
  documentId: number;
  textPending: boolean;
}

export interface DocumentImportDeps {
  database: PublicApiDatabase;
  users: UsersService;
  uploads: UploadService;
  documents: DocumentsService;
  textExtraction: Pick<TextExtractionRunner, 'enqueue'>;
  /** Where the content is spooled before the upload checks it. */
  tempDir: string;
  /** UPLOAD_MAX_FILE_SIZE_MB in bytes. */
  maxBytes: number;
  logger: Logger;
}

/** Files up to this size are held in memory instead of spooled (an upload's in-memory size). */
const MEMORY_FILE_BYTES = 1024 * 1024;
/** Bytes the imports of a process may hold at once; past it, files are spooled. */
const MEMORY_BUDGET_BYTES = 16 * 1024 * 1024;

/** Where an import's content is: in memory, or a spool file. */
type Received = { buffer: Buffer; path?: undefined } | { path: string; buffer?: undefined };

/** Counts bytes and fails past the limit, so a too large body is never spooled whole. */
function byteLimit(maxBytes: number, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      counted.bytes += chunk.length;
      if (counted.bytes > maxBytes) done(new PayloadTooLargeError(`The file is larger than ${maxBytes} bytes`, { errors: [`file: larger than ${maxBytes} bytes`] }));
      else done(null, chunk);
    },
  });
}

/**
 * Stores a file that arrived from a drive or a mail as a document of a user,
 * exactly as an upload (content sniffing, quota, DOCX to PDF), once per
 * idempotency key: the internal import route of the fetch task and the
 * event bus's dispatcher both use it.
 */
export class DocumentImportService {
  private readonly imports: DocumentImportsRepository;
  private readonly memory = new MemoryBudget(MEMORY_BUDGET_BYTES);
  private tempDirReady: Promise<void> | undefined;

  constructor(private readonly deps: DocumentImportDeps) {
    this.imports = new DocumentImportsRepository(deps.database);
  }

  /** The largest content an import stores, in bytes (UPLOAD_MAX_FILE_SIZE_MB). */
  get maxBytes(): number {
    return this.deps.maxBytes;
  }

  async import(request: ImportRequest): Promise<DocumentImportResponse> {
    const { deps } = this;
    const user = request.user?.id === request.userId ? request.user : await deps.users.findById(request.userId);
    if (!user) {
      request.content.resume();
      throw new NotFoundError('User not found');
    }
    if (request.idempotencyKey && !request.firstAttempt) {
      const existing = await this.findImported(user.id, request.idempotencyKey);
      if (existing) {
        request.content.resume();
        return existing;
      }
    }
    const spoolPath = path.join(deps.tempDir, `import-${randomUUID()}`);
    const counted = { bytes: 0 };
    let received: Received | undefined;
    try {
      received = await this.receive(request.content, spoolPath, counted);
      const result = await deps.uploads.upload(
        { id: user.id, role: user.role },
        { description: null, tags: [], metadata: { source: request.source, ...(request.sourceRef ? { source_ref: request.sourceRef } : {}) }, global: false },
        [{ field: 'file', size: counted.bytes, ...received, originalName: request.fileName, declaredMime: request.contentType || 'application/octet-stream' }],
      );
      const document = result.documents[0];
      if (!document) throw new Error('the upload stored no document');
      if (request.idempotencyKey && request.recordLater) {
        request.recordLater.push({ userId: user.id, key: request.idempotencyKey, documentId: document.id, textPending: document.textStatus === 'pending' });
        return this.response(document);
      }
      if (request.idempotencyKey) {
        const kept = await this.remember(user.id, request.idempotencyKey, document.id);
        if (kept !== document.id) {
          // Another import with the same key finished first: keep its document, not two.
          await deps.documents.delete(document.id, user.id).catch(() => undefined);
          const existing = await this.findImported(user.id, request.idempotencyKey);
          if (existing) return existing;
        }
      }
      if (document.textStatus === 'pending') deps.textExtraction.enqueue([document.id]);
      return this.response(document);
    } finally {
      if (received?.buffer) this.memory.release(received.buffer.length);
      else await rm(spoolPath, { force: true });
    }
  }

  /**
   * The content, held in memory while it is at most MEMORY_FILE_BYTES and
   * the budget allows (as an upload keeps its small files: no spool file to
   * write, read back and remove, and a text file is stored with its text at
   * once), else spooled to `spoolPath` (what was held, then the rest).
   */
  private async receive(content: Readable, spoolPath: string, counted: { bytes: number }): Promise<Received> {
    const chunks: Buffer[] = [];
    let held = 0;
    let spooled = false;
    try {
      await pipeline(content, byteLimit(this.deps.maxBytes, counted), async (source: AsyncIterable<Buffer>) => {
        const it = source[Symbol.asyncIterator]();
        for (let next = await it.next(); !next.done; next = await it.next()) {
          const chunk = next.value;
          if (held + chunk.length <= MEMORY_FILE_BYTES && this.memory.take(chunk.length)) {
            chunks.push(chunk);
            held += chunk.length;
            continue;
          }
          // Too large to hold: what was held, this chunk and the rest go to the spool file.
          spooled = true;
          this.memory.release(held);
          await (this.tempDirReady ??= mkdir(this.deps.tempDir, { recursive: true }).then(() => undefined));
          const rest = async function* (): AsyncGenerator<Buffer> {
            yield* chunks.splice(0);
            yield chunk;
            for (let more = await it.next(); !more.done; more = await it.next()) yield more.value;
          };
          await pipeline(Readable.from(rest()), createWriteStream(spoolPath, { mode: 0o600 }));
          return;
        }
      });
    } catch (err) {
      if (!spooled) this.memory.release(held);
      throw err;
    }
    return spooled ? { path: spoolPath } : { buffer: Buffer.concat(chunks, held) };
  }

  /**
   * Records the keys of imports made with `recordLater`, in one statement.
   * Answers the document kept for each import's document id: its own, or
   * the one an import with the same key recorded first (its own is deleted,
   * never two documents for one key).
   */
  async recordPending(pending: PendingImport[]): Promise<Map<number, number>> {
    const kept = new Map<number, number>();
    if (pending.length === 0) return kept;
    const recorded = await this.imports.rememberMany(pending);
    const extract: number[] = [];
    for (const p of pending) {
      const keptId = recorded.get(`${p.userId}:${p.key}`) ?? p.documentId;
      kept.set(p.documentId, keptId);
      if (keptId !== p.documentId) await this.deps.documents.delete(p.documentId, p.userId).catch(() => undefined);
      else if (p.textPending) extract.push(p.documentId);
    }
    // Queued together, so that the extraction claims them together.
    this.deps.textExtraction.enqueue(extract);
    return kept;
  }

  private response(d: DocumentRecord): DocumentImportResponse {
    const view = this.deps.documents.view(d);
    return { document_id: d.id, file_url: view.file_url, mime_type: d.mimeType, file_size: d.fileSize, filename: d.originalFilename };
  }

  private async findImported(userId: number, key: string): Promise<DocumentImportResponse | null> {
    const id = await this.imports.find(userId, key);
    if (id === null) return null;
    const [document] = await this.deps.documents.byIds([id]);
    return document ? this.response(document) : null;
  }

  private remember(userId: number, key: string, documentId: number): Promise<number> {
    return this.imports.remember(userId, key, documentId);
  }
}
