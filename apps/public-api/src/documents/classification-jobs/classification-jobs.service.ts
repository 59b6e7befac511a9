import { randomUUID } from 'node:crypto';
import type { ExtractionJobPayload, JobStatus } from '@docflow/contracts';
import { signJobUser } from '@docflow/internal-auth';
import { BadRequestError, errorMessage, isPlainObject, Logger, NotFoundError } from '@docflow/service-kit';
import type { AuthUser } from '../../identity';
import { fileUrlOf } from '../document-view';
import type { RouterClient } from '../../platform';
import { type GenerateJobBody, MAX_JOB_DOCUMENTS, type ExtractionJobType } from './classification-jobs.dto';
import type { ClassificationJobsRepository, JobDocumentRow } from './classification-jobs.repository';
import { EXTRACTION_JOB_ID_PREFIX } from './extraction-job-results';

export const JOB_NOT_FOUND = 'Job not found';
export const COLLECTION_NOT_FOUND = 'Collection not found';

export interface SubmittedJob {
  job_id: string;
  success: true;
  message: string;
  job_type: ExtractionJobType;
  status: 'queued';
  document_count: number;
}

/** GET /jobs/{job_id}/status (spec 4.5). `result` is null until the job completed. */
export interface JobStatusView {
  job_id: string;
  job_type: ExtractionJobType;
  status: JobStatus;
  result: ({ extraction_result: unknown; metadata: unknown } & Record<string, unknown>) | null;
  error: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface ClassificationJobsDeps {
  repo: ClassificationJobsRepository;
  router: Pick<RouterClient, 'submitJob'>;
  publicBaseUrl: string;
  logger: Logger;
  /** INTERNAL_SERVICE_JWT_SECRET: signs the user each job acts for. */
  jobUserSecret: string;
}

/**
 * The processor's result as the status endpoint shows it: what the
 * processor put in `outputs` (`extraction_result` and `metadata` for one
 * document, plus `documents` with one entry each when there are several),
 * with `extraction_result` and `metadata` always present.
 */
export function resultFromOutputs(stored: Record<string, unknown> | null | undefined): JobStatusView['result'] {
  const outputs = isPlainObject(stored) ? stored : {};
  return { ...outputs, extraction_result: outputs['extraction_result'] ?? null, metadata: outputs['metadata'] ?? null };
}

/** Classification (and document extraction, OCR) jobs over a collection (spec 4.5), submitted through the router. */
export class ClassificationJobsService {
  constructor(private readonly deps: ClassificationJobsDeps) {}

  /** `body` as the route read it (parseBody with GenerateJobBody). */
  async submit(user: Pick<AuthUser, 'id'>, collectionId: number, body: GenerateJobBody): Promise<SubmittedJob> {
    const { repo, router, logger } = this.deps;
    if (!(await repo.ownsCollection(collectionId, user.id))) throw new NotFoundError(COLLECTION_NOT_FOUND);

    // null, like leaving the field out, means every document of the collection (as null metadata or config means none).
    const documents = await this.documentsFor(user.id, collectionId, body.document_ids ?? undefined);
    const jobType = body.job_type ?? 'classification';
    const jobId = `${EXTRACTION_JOB_ID_PREFIX[jobType]}_${randomUUID()}`;
    const payload: ExtractionJobPayload = {
      documents: documents.map((d) => ({ id: d.id, title: d.title, mime_type: d.mimeType, file_url: fileUrlOf(d, this.deps.publicBaseUrl), text_status: d.textStatus })),
      collection_id: collectionId,
      user_id: user.id,
      user_signature: signJobUser(this.deps.jobUserSecret, jobId, user.id),
      metadata: body.metadata ?? {},
      config: body.config ?? {},
    };

    // Recorded first, so that a status read right after the answer finds its owner; removed again when the router does not take the job.
    await repo.insert({ jobId, userId: user.id, collectionId, jobType, documentIds: documents.map((d) => d.id) });
    try {
      await router.submitJob({ jobId, jobType, payload: payload as unknown as Record<string, unknown> });
    } catch (err) {
      await repo.delete(jobId).catch((cleanup: unknown) => logger.error('could not remove a job that was not queued', { jobId, error: errorMessage(cleanup) }));
      throw err;
    }
    logger.info('extraction job queued', { jobId, jobType, collectionId, documents: documents.length });
    const noun = documents.length === 1 ? 'document' : 'documents';
    return {
      job_id: jobId,
      success: true,
      message: `${jobType === 'classification' ? 'Classification' : jobType === 'OCR' ? 'OCR' : 'Document extraction'} job queued for ${documents.length} ${noun}`,
      job_type: jobType,
      status: 'queued',
      document_count: documents.length,
    };
  }

  async status(user: Pick<AuthUser, 'id'>, jobId: string): Promise<JobStatusView> {
    // The job's own row, which the results consumer keeps (issue #12 item 3): no call to the router.
    const job = await this.deps.repo.findOwned(jobId, user.id);
    if (!job) throw new NotFoundError(JOB_NOT_FOUND);
    return {
      job_id: jobId,
      job_type: job.jobType,
      status: job.status,
      result: job.status === 'completed' ? resultFromOutputs(job.outputs) : null,
      error: job.status === 'failed' ? (job.error ?? 'The job failed') : null,
      created_at: job.createdAt.toISOString(),
      updated_at: job.updatedAt.toISOString(),
    };
  }

  /** The documents asked for (each owned by the caller) or, with none named, every document of the collection. */
  private async documentsFor(userId: number, collectionId: number, ids: number[] | undefined): Promise<JobDocumentRow[]> {
    if (ids === undefined) {
      const all = await this.deps.repo.collectionDocuments(collectionId, MAX_JOB_DOCUMENTS + 1);
      if (all.length === 0) throw BadRequestError.withErrors('The collection has no documents', ['the collection has no documents to process; add documents or name them in document_ids']);
      if (all.length > MAX_JOB_DOCUMENTS) {
        throw BadRequestError.withErrors('Too many documents for one job', [`the collection has more than ${MAX_JOB_DOCUMENTS} documents; name at most ${MAX_JOB_DOCUMENTS} in document_ids`]);
      }
      return all;
    }
    const unique = [...new Set(ids)];
    const owned = await this.deps.repo.ownedDocuments(unique, userId);
    if (owned.length !== unique.length) {
      const found = new Set(owned.map((d) => d.id));
      throw new NotFoundError('Document not found', { document_ids: unique.filter((id) => !found.has(id)) });
    }
    return owned;
  }
}
