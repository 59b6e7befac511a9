import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Writable } from 'node:stream';
import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { AppError, BadRequestError, bodyEncodingOf, inflatedBody, isReadableBodyEncoding, PayloadTooLargeError, unsupportedEncodingError } from '@docflow/service-kit';
import { MemoryBudget, SpoolStorage } from './spool-storage';

/** One received upload: held in memory when small, else in a temp file that the request handler removes. */
export interface SpooledFile {
  /** The form field: `file` or `files` on uploads, any name on webhook triggers. */
  field: string;
  size: number;
  /** The whole content, for files up to the in-memory size. */
  buffer?: Buffer;
  /** The temp file, for larger files. */
  path?: string;
  /** As the client sent it; sanitise before use. */
  originalName: string;
  /** The client's claim, checked against the content. */
  declaredMime: string;
}

export const MAX_FILES_PER_UPLOAD = 10;

export interface UploadMiddlewareOptions {
  tempDir: string;
  maxFileBytes: number;
  /** Files up to this size are kept in memory (default 1 MiB)... */
  memoryFileBytes?: number;
  /** ...while all requests together hold less than this (default 64 MiB). */
  memoryBudgetBytes?: number;
  /** Files under any field name (webhook triggers), instead of `file` and `files` only. */
  anyFieldName?: boolean;
  /** Plain form fields: how many, and the bytes of each (default 50 of 1 MiB). */
  fieldLimits?: { fields: number; fieldSize: number };
}

/** Multer 2.5's option its type declarations do not know yet: what feeds the request body to busboy (default `req.pipe(busboy)`). */
interface MulterStreamHandler {
  streamHandler(req: IncomingMessage, busboy: Writable): void;
}

function describeMulterError(err: multer.MulterError): string {
  switch (err.code) {
    case 'LIMIT_UNEXPECTED_FILE':
      return `unexpected file field ${err.field ?? ''}: send the file as "file" (or "files")`.trim();
    case 'LIMIT_FILE_COUNT':
      return `at most ${MAX_FILES_PER_UPLOAD} files per upload`;
    case 'LIMIT_FIELD_COUNT':
    case 'LIMIT_PART_COUNT':
      return 'too many form fields';
    case 'LIMIT_FIELD_VALUE':
      return `form field ${err.field ?? ''} is too long`;
    default:
      return err.message;
  }
}

/**
 * Receives the multipart body of an upload: small files in memory (within a
 * budget), larger ones in temp files, never a large file as a whole in memory.
 * A file over maxFileBytes stops the upload with 413 and what was written of
 * it is removed.
 */
export function createUploadMiddleware(options: UploadMiddlewareOptions): RequestHandler {
  const storage = new SpoolStorage({
    tempDir: options.tempDir,
    memoryFileBytes: options.memoryFileBytes ?? 1024 * 1024,
    budget: new MemoryBudget(options.memoryBudgetBytes ?? 64 * 1024 * 1024),
  });
  const fields = { fields: 50, fieldSize: 1024 * 1024, ...options.fieldLimits };
  // A compressed form is inflated up to what its limits let through at most (files, fields, and room for part headers).
  const maxInflatedBytes = MAX_FILES_PER_UPLOAD * options.maxFileBytes + fields.fields * fields.fieldSize + 1024 * 1024;
  const multerOptions: multer.Options & MulterStreamHandler = {
    storage,
    streamHandler: (req, busboy) => {
      // A parse error of busboy's (a truncated or malformed form) is the caller's: answered 400, below.
      fed.add(req);
      busboy.prependListener('error', () => malformed.add(req));
      const encoding = bodyEncodingOf(req.headers);
      if (encoding === 'identity') return void req.pipe(busboy);
      const body = inflatedBody(req, encoding, maxInflatedBytes);
      body.on('error', (err) => busboy.destroy(err));
      body.pipe(busboy);
    },
    // Filenames in the part headers are UTF-8 (what browsers and curl send), not busboy's default latin1.
    defParamCharset: 'utf8',
    limits: { fileSize: options.maxFileBytes, files: MAX_FILES_PER_UPLOAD, ...fields, parts: 70, fieldNameSize: 200 },
  };
  const parser = multer(multerOptions);
  const parse = options.anyFieldName
    ? parser.any()
    : parser.fields([
        { name: 'file', maxCount: 1 },
        { name: 'files', maxCount: MAX_FILES_PER_UPLOAD },
      ]);
  const maxMb = options.maxFileBytes / (1024 * 1024);
  const malformed = new WeakSet<object>();
  // Requests whose body reached busboy: an error before that is busboy refusing the headers (no boundary, say).
  const fed = new WeakSet<object>();
  return (req, res, next) => {
    const encoding = bodyEncodingOf(req.headers);
    if (!isReadableBodyEncoding(encoding)) {
      req.resume();
      return next(unsupportedEncodingError(encoding));
    }
    parse(req, res, (err: unknown) => {
      if (err === undefined || err === null) return next();
      if (err instanceof AppError) return next(err);
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') {
          return next(
            new PayloadTooLargeError(`File is larger than the upload limit of ${Number.isInteger(maxMb) ? maxMb : maxMb.toFixed(2)} MB`, {
              maxBytes: options.maxFileBytes,
              errors: [`${err.field ?? 'file'}: more than ${options.maxFileBytes} bytes`],
            }),
          );
        }
        return next(BadRequestError.withErrors('Invalid upload', [describeMulterError(err)]));
      }
      if (!fed.has(req)) {
        req.resume();
        return next(BadRequestError.withErrors('Invalid upload', ['the multipart Content-Type is malformed or names no boundary']));
      }
      if (malformed.has(req)) return next(BadRequestError.withErrors('Invalid upload', ['the multipart body is malformed or ends early']));
      return next(err);
    });
  };
}

function spooled(f: Express.Multer.File): SpooledFile {
  return {
    field: f.fieldname,
    size: f.size,
    ...(Buffer.isBuffer(f.buffer) ? { buffer: f.buffer } : { path: f.path }),
    originalName: f.originalname,
    declaredMime: f.mimetype,
  };
}

/** The files multer spooled for this request: `file` first, then `files` (uploads), or in the order sent (any field name). */
export function spooledFiles(req: Request): SpooledFile[] {
  if (Array.isArray(req.files)) return req.files.map(spooled);
  const files = (req.files ?? {}) as Partial<Record<'file' | 'files', Express.Multer.File[]>>;
  return (['file', 'files'] as const).flatMap((field) => (files[field] ?? []).map(spooled));
}

/** Removes the temp files of a request (always, after the handler). */
export async function removeSpooled(files: SpooledFile[]): Promise<void> {
  await Promise.all(files.map((f) => (f.path ? rm(f.path, { force: true }) : undefined)));
}
