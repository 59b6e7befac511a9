import type { DocumentType, RagProcessingStatus, RagStatus, TextStatus, Visibility } from './document-types';
import type { DocumentRecord } from './documents.repository';
import { withExtension } from './filenames';

/**
 * A document as every response shows it: the fields of interface spec 2.2 in
 * both spellings that clients use (file_url/fileUrl, mime_type/mimeType,
 * file_size/fileSize).
 */
export interface DocumentView {
  id: number;
  title: string;
  description: string | null;
  file_url: string;
  fileUrl: string;
  mime_type: string;
  mimeType: string;
  file_size: number;
  fileSize: number;
  filename: string;
  sha256: string;
  tags: string[];
  visibility: Visibility;
  globalKey: string | null;
  owner: { id: number; username: string | null };
  documentType: DocumentType | null;
  metadata: Record<string, unknown>;
  textStatus: TextStatus;
  ragEnabled: boolean;
  ragStatus: RagStatus;
  rag_processing_status: RagProcessingStatus | null;
  rag_chunk_count: number;
  createdAt: string;
  updatedAt: string;
  collections?: { id: number; name: string }[];
}

function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/**
 * `{PUBLIC_BASE_URL}/api/documents/{id}/download` (needs the owner's token);
 * for a global document the public `{PUBLIC_BASE_URL}/api/documents/global/download/{key}`,
 * which anyone who sees it in the global list can use.
 */
export function fileUrlOf(doc: Pick<DocumentRecord, 'id' | 'visibility' | 'globalKey'>, publicBaseUrl: string): string {
  const base = `${trimBase(publicBaseUrl)}/api/documents`;
  if (doc.visibility === 'global' && doc.globalKey) return `${base}/global/download/${encodeURIComponent(doc.globalKey)}`;
  return `${base}/${doc.id}/download`;
}

/** The filename a download carries: the upload's name, with `.pdf` for a converted DOCX. */
export function downloadFilename(doc: Pick<DocumentRecord, 'originalFilename' | 'documentType'>, variant: 'served' | 'original' = 'served'): string {
  return variant === 'served' && doc.documentType ? withExtension(doc.originalFilename, 'pdf') : doc.originalFilename;
}

export function toDocumentView(doc: DocumentRecord, publicBaseUrl: string, collections?: { id: number; name: string }[]): DocumentView {
  const fileUrl = fileUrlOf(doc, publicBaseUrl);
  return {
    id: doc.id,
    title: doc.title,
    description: doc.description,
    file_url: fileUrl,
    fileUrl,
    mime_type: doc.mimeType,
    mimeType: doc.mimeType,
    file_size: doc.fileSize,
    fileSize: doc.fileSize,
    filename: downloadFilename(doc),
    sha256: doc.sha256,
    tags: doc.tags,
    visibility: doc.visibility,
    globalKey: doc.globalKey,
    owner: { id: doc.ownerId, username: doc.ownerUsername },
    documentType: doc.documentType,
    metadata: doc.metadata,
    textStatus: doc.textStatus,
    ragEnabled: doc.ragEnabled,
    ragStatus: doc.ragStatus,
    rag_processing_status: doc.ragProcessingStatus,
    rag_chunk_count: doc.ragChunkCount,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    ...(collections ? { collections } : {}),
  };
}
