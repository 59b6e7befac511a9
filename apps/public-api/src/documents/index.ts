// The documents module: documents and their upload, text and storage, collections, classification jobs and prompts. Below: what other modules use of it.
import { ClassificationJobEntity } from './classification-jobs/classification-job.entity';
import { CollectionDocumentEntity } from './collections/collection-document.entity';
import { CollectionEntity } from './collections/collection.entity';
import { DocumentEntity } from './document.entity';
import { CreateDocuments1764000000020 } from './migrations/1764000000020-CreateDocuments';
import { CreateCollections1764000000021 } from './migrations/1764000000021-CreateCollections';
import { DocumentTitleIndexWithoutPendingList1764000000022 } from './migrations/1764000000022-DocumentTitleIndexWithoutPendingList';
import { CreatePrompts1764000000030 } from './migrations/1764000000030-CreatePrompts';
import { SeedSystemPrompts1764000000031 } from './migrations/1764000000031-SeedSystemPrompts';
import { CreateClassificationJobs1764000000032 } from './migrations/1764000000032-CreateClassificationJobs';
import { DocumentTextLz41764000000061 } from './migrations/1764000000061-DocumentTextLz4';
import { ExtractionJobResults1764000000210 } from './migrations/1764000000210-ExtractionJobResults';
import { PromptPublishing1764000000251 } from './migrations/1764000000251-PromptPublishing';
import { PromptEntity } from './prompts/prompt.entity';
import { UserStorageUsageEntity } from './storage-usage.entity';

export { getDocumentText } from './document-text';
export type { DocumentTextResult } from './document-text';
export { signedApiUrl, signedDownloadUrl, signedDownloadPath, verifySignedRequest } from './signed-urls';
export type { SignedDownloadUrl, SignedUrlConfig } from './signed-urls';
export { fileUrlOf, toDocumentView } from './document-view';
export type { DocumentView } from './document-view';
export type { DocumentRecord } from './documents.repository';
export type { DocumentsService } from './documents.service';
export type { TextExtractionRunner } from './text-extraction.runner';
export type { DocumentType, ExtractedPageRow, RagProcessingStatus, RagStatus, TextStatus, Visibility } from './document-types';
export { QUOTA_WARNING_RATIO } from './upload/upload.service';
export type { UploadService, UploadResult, Uploader, QuotaWarning } from './upload/upload.service';

export { createDocumentsModule } from './documents.module';
export type { DocumentsModule, DocumentsModuleDeps } from './documents.module';
export { createStorageFromConfig } from './storage-from-config';
export { isExtractionJobId } from './classification-jobs/extraction-job-results';
export type { ExtractionJobResultsService, ExtractionResultOutcome } from './classification-jobs/extraction-job-results';

export const DOCUMENTS_ENTITIES = [DocumentEntity, UserStorageUsageEntity, CollectionEntity, CollectionDocumentEntity, PromptEntity, ClassificationJobEntity];
export const DOCUMENTS_MIGRATIONS = [
  CreateDocuments1764000000020,
  CreateCollections1764000000021,
  DocumentTitleIndexWithoutPendingList1764000000022,
  CreatePrompts1764000000030,
  SeedSystemPrompts1764000000031,
  CreateClassificationJobs1764000000032,
  DocumentTextLz41764000000061,
  ExtractionJobResults1764000000210,
  PromptPublishing1764000000251,
];

// Used by other modules.
export { RAG_PROCESSING_STATUSES, RAG_STATUSES } from './document-types';
export { documentListSpec } from './documents.repository';
export type { CollectionsRepository } from './collections/collections.repository';
export type { PromptsRepository } from './prompts/prompts.repository';
export type { PromptsService } from './prompts/prompts.service';
export { CreatePromptBody, parsePromptBody } from './prompts/prompts.dto';
export { createUploadMiddleware, removeSpooled, spooledFiles } from './upload/upload-middleware';
export type { SpooledFile } from './upload/upload-middleware';
export { MemoryBudget } from './upload/spool-storage';
export { documentsUserData } from './user-data';
export type { DocumentsUserDataDeps } from './user-data';
