import { DocConverter } from '@docflow/doc-conversion';
import type { StorageDriver } from '@docflow/storage';
import { CollectionsRepository } from './collections/collections.repository';
import { CollectionsService } from './collections/collections.service';
import { createCollectionsFeature } from './collections/collections.feature';
import { createDocumentsFeature } from './documents.feature';
import { DocumentsRepository } from './documents.repository';
import { DocumentsService } from './documents.service';
import { StorageQuotaRepository } from './storage-quota.repository';
import { TextExtractionRunner } from './text-extraction.runner';
import { createUploadMiddleware } from './upload/upload-middleware';
import { UploadService } from './upload/upload.service';
import type { AuditLog, AuthGuards, QuotasService } from '../identity';
import { bindFeature, type MountableFeature, type PlatformServices } from '../platform';
import { classificationJobsFeature } from './classification-jobs/classification-jobs.feature';
import { ClassificationJobsRepository } from './classification-jobs/classification-jobs.repository';
import { ExtractionJobResultsService } from './classification-jobs/extraction-job-results';
import { internalTextFeature } from './internal-text/internal-text.feature';
import { promptsFeature } from './prompts/prompts.feature';
import { PromptsRepository } from './prompts/prompts.repository';
import { PromptsService } from './prompts/prompts.service';
import { createStorageFromConfig, uploadTempDir } from './storage-from-config';

const MB = 1024 * 1024;

export interface DocumentsModuleDeps extends Pick<PlatformServices, 'config' | 'database' | 'logger' | 'metrics' | 'openapi'> {
  auth: AuthGuards;
  audit: AuditLog;
  /** Per-user storage quotas (STORAGE_QUOTA_MB unless an administrator set another) and their 80 % warnings. */
  quotas: QuotasService;
  /** Default: the driver STORAGE_DRIVER names. */
  storage?: StorageDriver;
  /** Default: one LibreOffice at a time, DOCX_CONVERSION_TIMEOUT_SECONDS each. */
  converter?: DocConverter;
  /**
   * Where new documents' text is extracted (default `here`): `elsewhere` in a
   * process without the workers role, whose uploads leave their rows pending
   * for a workers process; `sweeper-only` in a workers process without the api
   * role, whose sweeper takes pending rows at once (no upload of its own is
   * about to extract them).
   */
  textExtraction?: 'here' | 'elsewhere' | 'sweeper-only';
}

/** Documents and collections with what they share (storage, the DOCX converter and background text extraction), prompts and classification jobs. */
export interface DocumentsModule {
  features: { documents: MountableFeature; collections: MountableFeature; prompts: MountableFeature; classificationJobs: MountableFeature; internalText: MountableFeature };
  uploads: UploadService;
  /** Where upload middlewares spool files (webhook triggers build one of their own). */
  uploadTempDir: string;
  storage: StorageDriver;
  documents: DocumentsService;
  textExtraction: TextExtractionRunner;
  /** Prompts for agents' tools (listing, and the Composer's drafts). */
  prompts: { repo: PromptsRepository; service: PromptsService };
  /** Collections for agents: the one an agent makes public to its key holders (`public_collection_id`). */
  collections: { repo: CollectionsRepository };
  /** The extraction family's handler of the results consumer (workers): writes each job's outcome into its row. */
  extractionResults: ExtractionJobResultsService;
  /** Starts the periodic sweep for left-behind text extractions (main; tests call textExtraction.sweepOnce). */
  start(): void;
  /** Stops the sweep and waits for running extractions. */
  stop(): Promise<void>;
}

export function createDocumentsModule(deps: DocumentsModuleDeps): DocumentsModule {
  const { config, database } = deps;
  const logger = deps.logger.child({ component: 'documents' });
  const storage = deps.storage ?? createStorageFromConfig(config);
  const tempDir = uploadTempDir(config);
  const maxFileBytes = config.UPLOAD_MAX_FILE_SIZE_MB * MB;
  const conversionTimeoutMs = config.DOCX_CONVERSION_TIMEOUT_SECONDS * 1000;
  const converter = deps.converter ?? new DocConverter({ concurrency: 1, defaultTimeoutMs: conversionTimeoutMs, limits: { maxFileBytes }, logger: logger.child({ component: 'docx-to-pdf' }) });

  const repo = new DocumentsRepository(database);
  const documents = new DocumentsService({ repo, storage, logger, publicBaseUrl: config.PUBLIC_BASE_URL });
  const uploads = new UploadService({
    documents: repo,
    quota: new StorageQuotaRepository(database),
    storage,
    converter,
    logger,
    audit: deps.audit,
    quotaBytesFor: (userId) => deps.quotas.storageQuotaBytes(userId),
    afterUpload: (userId) => deps.quotas.checkWarnings(userId),
    conversionTimeoutMs,
    tempDir,
  });
  const textExtraction = new TextExtractionRunner(repo, storage, logger.child({ component: 'text-extraction' }), {
    concurrency: config.TEXT_EXTRACTION_CONCURRENCY,
    sweepIntervalMs: config.TEXT_EXTRACTION_SWEEP_SECONDS * 1000,
    // A converted DOCX may make a PDF larger than the upload limit.
    maxBytes: Math.max(maxFileBytes * 4, 50 * MB),
    extractsEnqueued: deps.textExtraction !== 'elsewhere',
    ...(deps.textExtraction === 'sweeper-only' ? { pendingGraceSeconds: 0 } : {}),
  });
  const prompts = new PromptsRepository(database);
  const collectionsRepo = new CollectionsRepository(database);
  const collections = new CollectionsService(collectionsRepo, documents);
  const needs = { config, database, logger: deps.logger, openapi: deps.openapi, auth: deps.auth, audit: deps.audit, quotas: deps.quotas };

  return {
    features: {
      documents: bindFeature(createDocumentsFeature({ documents, uploads, textExtraction, uploadMiddleware: createUploadMiddleware({ tempDir, maxFileBytes }) }), needs),
      collections: bindFeature(createCollectionsFeature(collections), needs),
      prompts: bindFeature(promptsFeature, needs),
      classificationJobs: bindFeature(classificationJobsFeature, needs),
      internalText: bindFeature(internalTextFeature, needs),
    },
    storage,
    documents,
    uploads,
    uploadTempDir: tempDir,
    textExtraction,
    prompts: { repo: prompts, service: new PromptsService(prompts) },
    collections: { repo: collectionsRepo },
    extractionResults: new ExtractionJobResultsService({ repo: new ClassificationJobsRepository(database), logger: logger.child({ component: 'extraction-results' }), metrics: deps.metrics }),
    start: () => textExtraction.start(),
    stop: () => textExtraction.stop(),
  };
}
