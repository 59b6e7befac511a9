// What other features of the public API (RAG, prompts, webhooks, classification) use from documents.
export { getDocumentText } from './document-text';
export type { DocumentTextResult } from './document-text';
export { signedDownloadUrl, signedDownloadPath } from './signed-urls';
export type { SignedDownloadUrl, SignedUrlConfig } from './signed-urls';
export { fileUrlOf, toDocumentView } from './document-view';
export type { DocumentView } from './document-view';
export type { DocumentRecord } from './documents.repository';
export type { DocumentsService } from './documents.service';
export type { TextExtractionRunner } from './text-extraction.runner';
export type { DocumentType, ExtractedPageRow, RagProcessingStatus, RagStatus, TextStatus, Visibility } from './document-types';
export { QUOTA_WARNING_RATIO } from './upload/upload.service';
export type { UploadService, UploadResult, Uploader, QuotaWarning } from './upload/upload.service';
