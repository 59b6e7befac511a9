import { mkdir, rm } from 'node:fs/promises';
import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { BadRequestError, PayloadTooLargeError } from '@docflow/service-kit';

/** One spooled upload: multer wrote it to a temp file, which the request handler removes. */
export interface SpooledFile {
  field: 'file' | 'files';
  path: string;
  size: number;
  /** As the client sent it; sanitise before use. */
  originalName: string;
  /** The client's claim, checked against the content. */
  declaredMime: string;
}

export const MAX_FILES_PER_UPLOAD = 10;

export interface UploadMiddlewareOptions {
  tempDir: string;
  maxFileBytes: number;
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
 * Spools the multipart body of an upload to temp files (never whole files in
 * memory). A file over maxFileBytes stops the upload with 413 and multer
 * removes what was written of it.
 */
export function createUploadMiddleware(options: UploadMiddlewareOptions): RequestHandler {
  const storage = multer.diskStorage({
    destination: (_req, _file, cb) => {
      mkdir(options.tempDir, { recursive: true, mode: 0o700 }).then(
        () => cb(null, options.tempDir),
        (err: Error) => cb(err, options.tempDir),
      );
    },
  });
  const parse = multer({
    storage,
    // Filenames in the part headers are UTF-8 (what browsers and curl send), not busboy's default latin1.
    defParamCharset: 'utf8',
    limits: { fileSize: options.maxFileBytes, files: MAX_FILES_PER_UPLOAD, fields: 50, fieldSize: 1024 * 1024, parts: 70, fieldNameSize: 200 },
  }).fields([
    { name: 'file', maxCount: 1 },
    { name: 'files', maxCount: MAX_FILES_PER_UPLOAD },
  ]);
  const maxMb = options.maxFileBytes / (1024 * 1024);
  return (req, res, next) => {
    parse(req, res, (err: unknown) => {
      if (err === undefined || err === null) return next();
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
      return next(err);
    });
  };
}

/** The files multer spooled for this request, in field order (`file` first). */
export function spooledFiles(req: Request): SpooledFile[] {
  const files = (req.files ?? {}) as Partial<Record<'file' | 'files', Express.Multer.File[]>>;
  return (['file', 'files'] as const).flatMap((field) =>
    (files[field] ?? []).map((f) => ({ field, path: f.path, size: f.size, originalName: f.originalname, declaredMime: f.mimetype })),
  );
}

/** Removes the temp files of a request (always, after the handler). */
export async function removeSpooled(files: SpooledFile[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f.path, { force: true })));
}
