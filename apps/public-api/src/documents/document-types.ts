/** Value sets of the document record (interface spec 2.2, 3.5). */
export const VISIBILITIES = ['user', 'global'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const TEXT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'not_applicable'] as const;
export type TextStatus = (typeof TEXT_STATUSES)[number];

export const RAG_STATUSES = ['enabled', 'disabled', 'processing', 'failed'] as const;
export type RagStatus = (typeof RAG_STATUSES)[number];

export const RAG_PROCESSING_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type RagProcessingStatus = (typeof RAG_PROCESSING_STATUSES)[number];

/** Set when a DOCX was converted to PDF at upload. */
export interface DocumentType {
  original_mime_type: string;
  converted_to: 'application/pdf';
  /** Page count of the PDF, when it could be read. */
  pages: number | null;
}

export interface ExtractedPageRow {
  page: number;
  text: string;
}

/** A document row as the API uses it (without the extracted text), with its owner's username. */
export interface DocumentRecord {
  id: number;
  title: string;
  description: string | null;
  tags: string[];
  visibility: Visibility;
  globalKey: string | null;
  ownerId: number;
  ownerUsername: string | null;
  storageKey: string;
  originalStorageKey: string | null;
  originalFilename: string;
  mimeType: string;
  originalMimeType: string | null;
  fileSize: number;
  storageBytes: number;
  sha256: string;
  documentType: DocumentType | null;
  metadata: Record<string, unknown>;
  textStatus: TextStatus;
  textError: string | null;
  ragEnabled: boolean;
  ragStatus: RagStatus;
  ragProcessingStatus: RagProcessingStatus | null;
  ragChunkCount: number;
  ragError: string | null;
  createdAt: Date;
  updatedAt: Date;
}
