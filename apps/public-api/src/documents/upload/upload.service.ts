import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ConversionRefusedError, type DocConverter } from '@docflow/doc-conversion';
import { generateKey, type StorageDriver } from '@docflow/storage';
import { BadRequestError, ConflictError, ForbiddenError, type Logger } from '@docflow/service-kit';
import { type AcceptedMimeType, sniffMime, type SniffedType, UnsafeArchiveError } from '@docflow/text-extraction';
import type { AuditLog } from '../../identity';
import type { UserRole } from '../../identity';
import type { TextStatus } from '../document-types';
import { type DocumentRecord, type DocumentsRepository, GlobalKeyTakenError, type NewDocument } from '../documents.repository';
import { sanitiseFilename } from '../filenames';
import type { StorageQuotaRepository } from '../storage-quota.repository';
import { removeStoredObjects } from '../stored-objects';
import { contentTypeProblem, sniffFile } from './content-type';
import type { UploadFields } from './upload-form';
import type { SpooledFile } from './upload-middleware';

const DOCX: AcceptedMimeType = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** Accepted types text cannot be extracted from (legacy Office, spreadsheets). */
const NO_TEXT: readonly AcceptedMimeType[] = ['application/msword', 'application/vnd.ms-excel', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'];

/** Types whose content is their text. */
const TEXT: readonly AcceptedMimeType[] = ['text/plain', 'text/csv', 'application/json'];

function sourceOf(file: SpooledFile): Buffer | Readable {
  return file.buffer ?? createReadStream(file.path ?? '');
}

/** Quota usage reported with an upload; a warning from this share of the quota (interface spec 8). */
export const QUOTA_WARNING_RATIO = 0.8;

export interface QuotaWarning {
  code: 'quota_warning';
  message: string;
  used_bytes: number;
  quota_bytes: number;
  ratio: number;
}

export interface UploadResult {
  documents: DocumentRecord[];
  warning?: QuotaWarning;
}

export interface UploadServiceDeps {
  documents: DocumentsRepository;
  quota: StorageQuotaRepository;
  storage: StorageDriver;
  converter: DocConverter;
  logger: Logger;
  audit: AuditLog;
  /** The storage each user may fill, in bytes (an administrator may set it per user, issue 18). */
  quotaBytesFor(userId: number): Promise<number>;
  /** After a successful upload that left storage at or past 80 % of the quota: mails the warning once a month (spec 8); never throws. */
  afterUpload?(userId: number): Promise<void>;
  conversionTimeoutMs: number;
  /** Where converted PDFs are written before they are stored. */
  tempDir: string;
}

interface CheckedFile {
  file: SpooledFile;
  mime: AcceptedMimeType;
  ext: string;
  filename: string;
}

export interface Uploader {
  id: number;
  role: UserRole;
}

/**
 * POST /documents/upload as a use case: checks every file's content type,
 * reserves quota atomically, converts DOCX to PDF (keeping the original),
 * stores the files under generated keys and records the documents. All or
 * nothing: on any failure what was stored is removed and the quota released.
 */
export class UploadService {
  constructor(private readonly deps: UploadServiceDeps) {}

  /** `allowedMimeTypes` narrows the accepted types further (a webhook's list). */
  async upload(user: Uploader, fields: UploadFields, files: SpooledFile[], options: { allowedMimeTypes?: readonly string[] } = {}): Promise<UploadResult> {
    if (files.length === 0) throw BadRequestError.withErrors('A file is required', ['file: send the document as the multipart field "file" (or "files")']);
    if (fields.global && user.role !== 'super_admin') throw new ForbiddenError('Only a super administrator may upload global documents');
    if (fields.globalKey !== undefined && files.length > 1) throw BadRequestError.withErrors('Invalid upload fields', ['globalKey: names one document; upload one file']);

    const checked: CheckedFile[] = [];
    const errors: string[] = [];
    for (const file of files) {
      const filename = sanitiseFilename(file.originalName);
      let sniffed: SniffedType | undefined;
      try {
        sniffed = file.size === 0 ? undefined : file.buffer ? await sniffMime(file.buffer, file.originalName) : await sniffFile(file.path ?? '', file.originalName);
      } catch (err) {
        // A zip bomb or an unsafe archive (DOCX, XLSX): refused with its reason before anything is stored.
        if (err instanceof UnsafeArchiveError) throw BadRequestError.withErrors('The archive was refused', [`${filename}: ${err.message}`], { reason: err.reason });
        throw err;
      }
      if (!sniffed) {
        errors.push(`${filename}: ${file.size === 0 ? 'the file is empty' : 'the content is not one of the accepted types (PDF, images, text, CSV, JSON, Word, Excel)'}`);
        continue;
      }
      const problem = contentTypeProblem(sniffed.mime, file.declaredMime, file.originalName);
      if (problem) errors.push(`${filename}: ${problem}`);
      else if (options.allowedMimeTypes && !options.allowedMimeTypes.includes(sniffed.mime))
        errors.push(`${filename}: ${sniffed.mime} is not accepted here (allowed: ${options.allowedMimeTypes.join(', ')})`);
      else checked.push({ file, mime: sniffed.mime, ext: sniffed.ext, filename });
    }
    if (errors.length > 0) throw BadRequestError.withErrors('Unsupported or mismatched file type', errors);

    const created: DocumentRecord[] = [];
    let usedBytes = 0;
    const quotaBytes = await this.deps.quotaBytesFor(user.id);
    try {
      for (const item of checked) {
        const stored = await this.store(user.id, fields, item, quotaBytes);
        created.push(stored.document);
        usedBytes = stored.usedBytes;
      }
    } catch (err) {
      const deleted = await this.deps.documents.deleteOwned(
        created.map((d) => d.id),
        user.id,
      );
      await removeStoredObjects(
        this.deps.storage,
        deleted.flatMap((d) => d.storageKeys),
        this.deps.logger,
      );
      throw err;
    }
    const ratio = quotaBytes === 0 ? 1 : usedBytes / quotaBytes;
    // An upload moves storage only: below 80 % of it there is no warning to mail, and the usage is not read again.
    if (ratio < QUOTA_WARNING_RATIO) return { documents: created };
    if (this.deps.afterUpload) void this.deps.afterUpload(user.id);
    return {
      documents: created,
      warning: {
        code: 'quota_warning',
        message: `You are using ${Math.round(ratio * 100)}% of your storage quota`,
        used_bytes: usedBytes,
        quota_bytes: quotaBytes,
        ratio: Math.round(ratio * 10_000) / 10_000,
      },
    };
  }

  private async reserve(ownerId: number, bytes: number, quotaBytes: number): Promise<number> {
    const result = await this.deps.quota.reserve(ownerId, bytes, quotaBytes);
    if (result.ok) return result.usedBytes;
    throw this.quotaExceeded(ownerId, bytes, result.usedBytes, quotaBytes);
  }

  /** The refusal of an upload over quota, audited as `quota.exceeded`. */
  private quotaExceeded(ownerId: number, bytes: number, usedBytes: number, quota: number): BadRequestError {
    this.deps.audit.record({ action: 'quota.exceeded', actorUserId: ownerId, details: { requested_bytes: bytes, used_bytes: usedBytes, quota_bytes: quota } });
    return BadRequestError.withErrors('Storage quota exceeded', [`storing ${bytes} more bytes would exceed your storage quota of ${quota} bytes (${usedBytes} bytes used)`], {
      code: 'quota_exceeded',
      used_bytes: usedBytes,
      quota_bytes: quota,
    });
  }

  /** Converts a DOCX (from its temp file, or written to one) into a PDF in tempDir. */
  private async convert(file: SpooledFile): Promise<{ pdfPath: string; pages: number | null }> {
    let input = file.path;
    let written: string | undefined;
    try {
      if (input === undefined) {
        await mkdir(this.deps.tempDir, { recursive: true, mode: 0o700 });
        written = path.join(this.deps.tempDir, `${randomUUID()}.docx`);
        await writeFile(written, file.buffer ?? Buffer.alloc(0), { mode: 0o600 });
        input = written;
      }
      const result = await this.deps.converter.convertDocxToPdf(input, { outDir: this.deps.tempDir, timeoutMs: this.deps.conversionTimeoutMs });
      return { pdfPath: result.pdfPath, pages: result.pages ?? null };
    } catch (err) {
      if (err instanceof ConversionRefusedError) throw BadRequestError.withErrors('The Word document was refused', [err.message], { reason: err.reason });
      throw err;
    } finally {
      if (written) await rm(written, { force: true });
    }
  }

  private store(ownerId: number, fields: UploadFields, item: CheckedFile, quotaBytes: number): Promise<{ document: DocumentRecord; usedBytes: number }> {
    return item.mime === DOCX ? this.storeConverted(ownerId, fields, item, quotaBytes) : this.storeAsIs(ownerId, fields, item, quotaBytes);
  }

  /** The row of a stored file; what differs between stored-as-is and converted files is in `stored`. */
  private newDocument(
    ownerId: number,
    fields: UploadFields,
    item: CheckedFile,
    stored: Pick<NewDocument, 'storageKey' | 'originalStorageKey' | 'mimeType' | 'originalMimeType' | 'fileSize' | 'storageBytes' | 'sha256' | 'documentType' | 'textStatus' | 'extractedText'>,
  ): NewDocument {
    return {
      title: fields.title ?? item.filename,
      description: fields.description,
      tags: fields.tags,
      visibility: fields.global ? 'global' : 'user',
      globalKey: fields.global ? (fields.globalKey ?? randomUUID()) : null,
      ownerId,
      originalFilename: item.filename,
      metadata: fields.metadata,
      ...stored,
    };
  }

  /**
   * A file served as it came: stored, then its row inserted together with its
   * quota reservation in one statement (insertReserving). A refused
   * reservation or a failed insert removes the stored file; the statement
   * leaves the quota as it was.
   */
  private async storeAsIs(ownerId: number, fields: UploadFields, item: CheckedFile, quotaBytes: number): Promise<{ document: DocumentRecord; usedBytes: number }> {
    const { storage, logger, quota } = this.deps;
    const bytes = item.file.size;
    if (bytes > quotaBytes) throw this.quotaExceeded(ownerId, bytes, await quota.usedBytes(ownerId), quotaBytes);
    const key = generateKey(item.ext);
    const put = await storage.put(key, sourceOf(item.file), { contentType: item.mime });
    try {
      // Text files are their own text: stored at once as the bytes the sniffer checked (UTF-8 without NULs); other types are extracted in the background.
      const inlineText = item.file.buffer && TEXT.includes(item.mime) ? item.file.buffer : undefined;
      const textStatus: TextStatus = inlineText !== undefined ? 'completed' : NO_TEXT.includes(item.mime) ? 'not_applicable' : 'pending';
      const doc = this.newDocument(ownerId, fields, item, {
        storageKey: key,
        originalStorageKey: null,
        mimeType: item.mime,
        originalMimeType: null,
        fileSize: put.size,
        storageBytes: bytes,
        sha256: put.sha256,
        documentType: null,
        textStatus,
        extractedText: inlineText ?? null,
      });
      const stored = await this.deps.documents.insertReserving(doc, quotaBytes);
      if (!stored) throw this.quotaExceeded(ownerId, bytes, await quota.usedBytes(ownerId), quotaBytes);
      logger.info('document uploaded', { documentId: stored.document.id, ownerId, mimeType: item.mime, bytes: put.size, converted: false });
      return stored;
    } catch (err) {
      await removeStoredObjects(storage, [key], logger);
      if (err instanceof GlobalKeyTakenError) throw keyTaken(err);
      throw err;
    }
  }

  /** A DOCX: quota reserved for it before the conversion, then for the PDF; both stored, the PDF served. */
  private async storeConverted(ownerId: number, fields: UploadFields, item: CheckedFile, quotaBytes: number): Promise<{ document: DocumentRecord; usedBytes: number }> {
    const { storage, logger } = this.deps;
    const keys: string[] = [];
    let reserved = 0;
    let pdfPath: string | undefined;
    try {
      await this.reserve(ownerId, item.file.size, quotaBytes);
      reserved += item.file.size;
      const converted = await this.convert(item.file);
      const convertedPath = converted.pdfPath;
      pdfPath = convertedPath;
      const pdfBytes = (await stat(convertedPath)).size;
      const usedBytes = await this.reserve(ownerId, pdfBytes, quotaBytes);
      reserved += pdfBytes;
      const originalKey = generateKey(item.ext);
      await storage.put(originalKey, sourceOf(item.file), { maxBytes: item.file.size, contentType: item.mime });
      keys.push(originalKey);
      const key = generateKey('pdf');
      const put = await storage.put(key, createReadStream(convertedPath), { contentType: 'application/pdf' });
      keys.push(key);
      const document = await this.deps.documents.insert(
        this.newDocument(ownerId, fields, item, {
          storageKey: key,
          originalStorageKey: originalKey,
          mimeType: 'application/pdf',
          originalMimeType: item.mime,
          fileSize: put.size,
          storageBytes: reserved,
          sha256: put.sha256,
          documentType: { original_mime_type: item.mime, converted_to: 'application/pdf', pages: converted.pages },
          textStatus: 'pending',
          extractedText: null,
        }),
      );
      logger.info('document uploaded', { documentId: document.id, ownerId, mimeType: 'application/pdf', bytes: put.size, converted: true });
      return { document, usedBytes };
    } catch (err) {
      await removeStoredObjects(storage, keys, logger);
      await this.deps.quota.release(ownerId, reserved);
      if (err instanceof GlobalKeyTakenError) throw keyTaken(err);
      throw err;
    } finally {
      if (pdfPath) await rm(pdfPath, { force: true });
    }
  }
}

function keyTaken(err: GlobalKeyTakenError): ConflictError {
  return new ConflictError('A global document with this key exists', { errors: [`globalKey: ${err.key} is taken`] });
}
