import { DataSource } from 'typeorm';
import type { JobStatus } from '@docflow/contracts';
import type { PgTransaction } from '@docflow/persistence';
import type { ExtractionJobType } from './classification-jobs.dto';
import { ClassificationJobEntity } from './classification-job.entity';

/** What a job carries of a document (its text is read by the processor through the internal text endpoint). */
export interface JobDocumentRow {
  id: number;
  title: string;
  mimeType: string;
  visibility: 'user' | 'global';
  globalKey: string | null;
  textStatus: string;
}

interface RawDocument {
  id: number;
  title: string;
  mime_type: string;
  visibility: 'user' | 'global';
  global_key: string | null;
  text_status: string;
}

function toJobDocument(r: RawDocument): JobDocumentRow {
  return { id: r.id, title: r.title, mimeType: r.mime_type, visibility: r.visibility, globalKey: r.global_key, textStatus: r.text_status };
}

/** What one result asks an extraction job to become. */
export interface ExtractionResultUpdate {
  jobId: string;
  status: Exclude<JobStatus, 'queued'>;
  outputs: Record<string, unknown> | null;
  error: string | null;
  /** null: the message has no usable sequence (then only the status order guards it). */
  sequence: number | null;
}

export type ExtractionApplyOutcome = { outcome: 'applied'; from: JobStatus } | { outcome: 'ignored'; from: JobStatus } | { outcome: 'unknown' };

/** Progress order of an extraction job (spec 3.2, as the router's): a job never moves back, a terminal one never changes. */
const RANK_SQL = (expr: string) => `(CASE ${expr} WHEN 'queued' THEN 0 WHEN 'processing' THEN 1 WHEN 'awaiting_user_input' THEN 2 ELSE 3 END)`;

const DOCUMENT_COLUMNS = 'd.id, d.title, d.mime_type, d.visibility, d.global_key, d.text_status';

/** $1 job id, $2 status, $3 outputs, $4 error, $5 sequence: the guarded update of one extraction job's result (see `applyResult`). */
const APPLY_EXTRACTION_RESULT_SQL = `WITH cur AS (
   SELECT job_id, status, last_sequence FROM classification_jobs WHERE job_id = $1 FOR UPDATE
 ), upd AS (
   UPDATE classification_jobs j
      SET status = $2, outputs = $3::jsonb, error = $4, last_sequence = COALESCE($5::bigint, cur.last_sequence), updated_at = now(),
          completed_at = CASE WHEN $2 IN ('completed', 'failed') THEN now() ELSE NULL END
     FROM cur
    WHERE j.job_id = cur.job_id
      AND cur.status NOT IN ('completed', 'failed')
      AND ${RANK_SQL('$2::text')} >= ${RANK_SQL('cur.status')}
      AND ($5::bigint IS NULL OR cur.last_sequence IS NULL OR $5::bigint > cur.last_sequence)
   RETURNING 1
 )
 SELECT (SELECT status FROM cur) AS current, EXISTS (SELECT 1 FROM upd) AS applied`;

export class ClassificationJobsRepository {
  constructor(private readonly ds: DataSource) {}

  private get repo() {
    return this.ds.getRepository(ClassificationJobEntity);
  }

  async insert(row: { jobId: string; userId: number; collectionId: number; jobType: ExtractionJobType; documentIds: number[] }): Promise<void> {
    await this.repo.insert(row);
  }

  async delete(jobId: string): Promise<void> {
    await this.repo.delete({ jobId });
  }

  findOwned(jobId: string, userId: number): Promise<ClassificationJobEntity | null> {
    return this.repo.findOneBy({ jobId, userId });
  }

  /**
   * Applies one result in one statement: the row lock serialises results of
   * one job; a terminal job never changes, a lower status rank or a sequence
   * not above the last applied one is stale (a duplicate delivery included).
   */
  async applyResult(update: ExtractionResultUpdate, tx?: PgTransaction): Promise<ExtractionApplyOutcome> {
    const values = [update.jobId, update.status, update.outputs === null ? null : JSON.stringify(update.outputs), update.error, update.sequence];
    const rows = (tx ? (await tx.query(APPLY_EXTRACTION_RESULT_SQL, values)).rows : await this.ds.query(APPLY_EXTRACTION_RESULT_SQL, values)) as { current: JobStatus | null; applied: boolean }[];
    const row = rows[0];
    if (!row || row.current === null) return { outcome: 'unknown' };
    return { outcome: row.applied ? 'applied' : 'ignored', from: row.current };
  }

  /** Whether the collection exists and belongs to the user. */
  async ownsCollection(collectionId: number, userId: number): Promise<boolean> {
    const rows = (await this.ds.query('SELECT 1 FROM collections WHERE id = $1 AND owner_id = $2', [collectionId, userId])) as unknown[];
    return rows.length > 0;
  }

  /** The collection's documents, in the order they were added. */
  async collectionDocuments(collectionId: number, limit: number): Promise<JobDocumentRow[]> {
    const rows = (await this.ds.query(
      `SELECT ${DOCUMENT_COLUMNS} FROM collection_documents cd JOIN documents d ON d.id = cd.document_id
       WHERE cd.collection_id = $1 ORDER BY cd.added_at, d.id LIMIT $2`,
      [collectionId, limit],
    )) as RawDocument[];
    return rows.map(toJobDocument);
  }

  /** Those of the documents the user owns, in the order asked. */
  async ownedDocuments(ids: number[], userId: number): Promise<JobDocumentRow[]> {
    const rows = (await this.ds.query(`SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.id = ANY($1::int[]) AND d.owner_id = $2`, [ids, userId])) as RawDocument[];
    const byId = new Map(rows.map((r) => [r.id, toJobDocument(r)]));
    return ids.map((id) => byId.get(id)).filter((d): d is JobDocumentRow => d !== undefined);
  }
}
