import type { DocumentRecord, DocumentType, RagProcessingStatus, RagStatus, TextStatus, Visibility } from './document-types';

// The documents table as the repository reads it: column lists and the row-to-record mapping.

export const DOCUMENT_COLUMNS = [
  'id',
  'title',
  'description',
  'tags',
  'visibility',
  'global_key',
  'owner_id',
  'storage_key',
  'original_storage_key',
  'original_filename',
  'mime_type',
  'original_mime_type',
  'file_size',
  'storage_bytes',
  'sha256',
  'document_type',
  'metadata',
  'text_status',
  'text_error',
  'rag_enabled',
  'rag_status',
  'rag_processing_status',
  'rag_chunk_count',
  'rag_error',
  'created_at',
  'updated_at',
];
/** Every column but the extracted text, plus the owner's username (alias d, users joined as u). */
export const COLUMNS = `${DOCUMENT_COLUMNS.map((c) => `d.${c}`).join(', ')}, u.username AS owner_username`;
export const RETURNING = `${DOCUMENT_COLUMNS.join(', ')}, (SELECT username FROM users WHERE users.id = documents.owner_id) AS owner_username`;
export const FROM = 'documents d LEFT JOIN users u ON u.id = d.owner_id';

export interface DocumentRow {
  id: number;
  title: string;
  description: string | null;
  tags: string[] | null;
  visibility: Visibility;
  global_key: string | null;
  owner_id: number;
  owner_username: string | null;
  storage_key: string;
  original_storage_key: string | null;
  original_filename: string;
  mime_type: string;
  original_mime_type: string | null;
  file_size: string | number;
  storage_bytes: string | number;
  sha256: string;
  document_type: DocumentType | null;
  metadata: Record<string, unknown> | null;
  text_status: TextStatus;
  text_error: string | null;
  rag_enabled: boolean;
  rag_status: RagStatus;
  rag_processing_status: RagProcessingStatus | null;
  rag_chunk_count: number;
  rag_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export function toRecord(r: DocumentRow): DocumentRecord {
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    tags: Array.isArray(r.tags) ? r.tags : [],
    visibility: r.visibility,
    globalKey: r.global_key,
    ownerId: r.owner_id,
    ownerUsername: r.owner_username,
    storageKey: r.storage_key,
    originalStorageKey: r.original_storage_key,
    originalFilename: r.original_filename,
    mimeType: r.mime_type,
    originalMimeType: r.original_mime_type,
    fileSize: Number(r.file_size),
    storageBytes: Number(r.storage_bytes),
    sha256: r.sha256,
    documentType: r.document_type,
    metadata: r.metadata ?? {},
    textStatus: r.text_status,
    textError: r.text_error,
    ragEnabled: r.rag_enabled,
    ragStatus: r.rag_status,
    ragProcessingStatus: r.rag_processing_status,
    ragChunkCount: r.rag_chunk_count,
    ragError: r.rag_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** PostgreSQL text and jsonb cannot hold NUL characters. */
export function withoutNul(s: string): string {
  return s.includes('\u0000') ? s.replace(/\u0000/g, '') : s;
}
