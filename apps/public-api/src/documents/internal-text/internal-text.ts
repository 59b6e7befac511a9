import type { InternalDocumentText } from '@docflow/contracts';
import { NotFoundError } from '@docflow/service-kit';
import type { InternalTextRepository } from './internal-text.repository';

export type { InternalDocumentText } from '@docflow/contracts';

/**
 * A document's extracted text for an internal service. With `userId`, only
 * that user's documents (and global ones) are answered, so that a processor
 * working for a user cannot read someone else's document by a wrong id.
 */
export async function readDocumentText(repo: InternalTextRepository, id: number, userId?: number): Promise<InternalDocumentText> {
  const doc = await repo.documentText(id);
  if (!doc || (userId !== undefined && doc.ownerId !== userId && doc.visibility !== 'global')) throw new NotFoundError('Document not found');
  const completed = doc.textStatus === 'completed';
  return {
    document_id: doc.id,
    title: doc.title,
    mime_type: doc.mimeType,
    text_status: doc.textStatus,
    text: completed ? (doc.text ?? '') : null,
    pages: completed ? doc.pages : null,
    text_error: doc.textError,
  };
}
