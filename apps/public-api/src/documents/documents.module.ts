import { DocConverter } from '@docflow/doc-conversion';
import type { StorageDriver } from '@docflow/storage';
import type { Logger } from '@docflow/service-kit';
import { CollectionsRepository } from './collections/collections.repository';
import { CollectionsService } from './collections/collections.service';
import { createCollectionsFeature } from './collections/collections.feature';
import type { PublicApiConfig } from '../platform';
import type { PublicApiDatabase } from '../platform';
import { createDocumentsFeature } from './documents.feature';
import { DocumentsRepository } from './documents.repository';
import { DocumentsService } from './documents.service';
import { StorageQuotaRepository } from './storage-quota.repository';
import { TextExtractionRunner } from './text-extraction.runner';
import { createUploadMiddleware } from './upload/upload-middleware';
import { UploadService } from './upload/upload.service';
import type { AuditLog } from '../identity';
import type { ApiFeature } from '../platform';
import { createStorageFromConfig, uploadTempDir } from './storage-from-config';

const MB = 1024 * 1024;

export interface DocumentFeaturesDeps {
  config: PublicApiConfig;
  database: PublicApiDatabase;
  logger: Logger;
  audit: AuditLog;
  /** Default: the driver STORAGE_DRIVER names. */
  storage?: StorageDriver;
  /** Default: one LibreOffice at a time, DOCX_CONVERSION_TIMEOUT_SECONDS each. */
  converter?: DocConverter;
}

/** Documents and collections with what they share: storage, the DOCX converter and background text extraction. */
export interface DocumentFeatures {
  features: ApiFeature[];
  uploads: UploadService;
  /** Where upload middlewares spool files (webhook triggers build one of their own). */
  uploadTempDir: string;
  storage: StorageDriver;
  documents: DocumentsService;
  textExtraction: TextExtractionRunner;
  /** Starts the periodic sweep for left-behind text extractions (main; tests call textExtraction.sweepOnce). */
  start(): void;
  /** Stops the sweep and waits for running extractions. */
  stop(): Promise<void>;
}

export function createDocumentFeatures(deps: DocumentFeaturesDeps): DocumentFeatures {
  const { config, database } = deps;
  const logger = deps.logger.child({ component: 'documents' });
  const storage = deps.storage ?? createStorageFromConfig(config);
  const tempDir = uploadTempDir(config);
  const maxFileBytes = config.UPLOAD_MAX_FILE_SIZE_MB * MB;
  const conversionTimeoutMs = config.DOCX_CONVERSION_TIMEOUT_SECONDS * 1000;
  const converter =
    deps.converter ?? new DocConverter({ concurrency: 1, defaultTimeoutMs: conversionTimeoutMs, limits: { maxFileBytes }, logger: logger.child({ component: 'docx-to-pdf' }) });

  const repo = new DocumentsRepository(database);
  const documents = new DocumentsService({ repo, storage, logger, publicBaseUrl: config.PUBLIC_BASE_URL });
  const uploads = new UploadService({
    documents: repo,
    quota: new StorageQuotaRepository(database),
    storage,
    converter,
    logger,
    audit: deps.audit,
    quotaBytes: config.STORAGE_QUOTA_MB * MB,
    conversionTimeoutMs,
    tempDir,
  });
  const textExtraction = new TextExtractionRunner(repo, storage, logger.child({ component: 'text-extraction' }), {
    concurrency: config.TEXT_EXTRACTION_CONCURRENCY,
    sweepIntervalMs: config.TEXT_EXTRACTION_SWEEP_SECONDS * 1000,
    // A converted DOCX may make a PDF larger than the upload limit.
    maxBytes: Math.max(maxFileBytes * 4, 50 * MB),
  });
  const collections = new CollectionsService(new CollectionsRepository(database), documents);

  return {
    features: [
      createDocumentsFeature({ documents, uploads, textExtraction, uploadMiddleware: createUploadMiddleware({ tempDir, maxFileBytes }) }),
      createCollectionsFeature(collections),
    ],
    storage,
    documents,
    uploads,
    uploadTempDir: tempDir,
    textExtraction,
    start: () => textExtraction.start(),
    stop: () => textExtraction.stop(),
  };
}
