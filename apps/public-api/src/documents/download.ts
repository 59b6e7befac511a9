import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { StorageDriver } from '@docflow/storage';
import type { Logger } from '@docflow/service-kit';
import { downloadFilename } from './document-view';
import type { DocumentRecord } from './documents.repository';
import { attachmentDisposition } from './filenames';
import { errorMessage } from '@docflow/service-kit';

/** `served`: what the document shows (the PDF of a converted DOCX); `original`: the file as uploaded. */
export type DownloadVariant = 'served' | 'original';

export function parseVariant(value: unknown): DownloadVariant {
  return value === 'original' ? 'original' : 'served';
}

/**
 * Streams a stored file as an attachment with its stored content type, a
 * sanitised filename and `X-Content-Type-Options: nosniff`; the content is
 * never rendered as a page (`Content-Security-Policy: sandbox`).
 */
export async function sendDocumentFile(res: Response, storage: StorageDriver, doc: DocumentRecord, variant: DownloadVariant, logger: Logger): Promise<void> {
  const original = variant === 'original' && doc.originalStorageKey !== null;
  const key = original ? (doc.originalStorageKey ?? doc.storageKey) : doc.storageKey;
  const mime = original ? (doc.originalMimeType ?? doc.mimeType) : doc.mimeType;
  const size = original ? doc.storageBytes - doc.fileSize : doc.fileSize;
  const stream = await storage.get(key);
  res.status(200);
  res.setHeader('Content-Type', mime);
  res.setHeader('Content-Length', String(size));
  res.setHeader('Content-Disposition', attachmentDisposition(downloadFilename(doc, original ? 'original' : 'served')));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'private, no-store');
  try {
    await pipeline(stream, res);
  } catch (err) {
    // The client went away, or storage failed mid-stream: the response is already cut short.
    logger.debug('download interrupted', { documentId: doc.id, error: errorMessage(err) });
  }
}
