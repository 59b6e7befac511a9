import type { PublicApiDatabase } from '../platform';
import type { ExtractedPageRow, TextStatus } from './document-types';
import { DocumentsRepository } from './documents.repository';

/** What other features (RAG, prompts) read of a document's text. */
export interface DocumentTextResult {
  documentId: number;
  title: string;
  mimeType: string;
  /** `completed` when text is there; `pending`/`processing` while extraction runs; `failed` or `not_applicable` otherwise. */
  status: TextStatus;
  /** Null until extraction completed. */
  text: string | null;
  /** Per page for PDFs, images and DOCX with page breaks; null otherwise. */
  pages: ExtractedPageRow[] | null;
  /** Why extraction failed, when it did. */
  error: string | null;
}

/**
 * The extracted text of a document the user owns (or of a global document);
 * null when there is no such document for this user.
 */
export async function getDocumentText(database: PublicApiDatabase, documentId: number, userId: number): Promise<DocumentTextResult | null> {
  const row = await new DocumentsRepository(database).findText(documentId, userId);
  if (!row) return null;
  return {
    documentId: row.id,
    title: row.title,
    mimeType: row.mimeType,
    status: row.textStatus,
    text: row.textStatus === 'completed' ? (row.text ?? '') : null,
    pages: row.textStatus === 'completed' ? row.pages : null,
    error: row.textError,
  };
}
