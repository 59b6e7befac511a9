import type { PublicApiDatabase } from '../platform';
import { returnedRows } from './documents.repository';

type Row = Record<string, unknown>;

export interface OwnedFile {
  id: number;
  title: string;
  originalFilename: string | null;
  mimeType: string;
  originalMimeType: string | null;
  fileSize: number;
  storageBytes: number;
  storageKey: string;
  originalStorageKey: string | null;
}

/** The documents module's rows of one user, for a data export and an account deletion (issue #18). */
export class DocumentsUserDataRepository {
  constructor(private readonly ds: PublicApiDatabase) {}

  /** Document metadata (the files go into the archive beside it; storage keys and claim bookkeeping stay out). */
  documents(userId: number): Promise<Row[]> {
    return this.ds.query(
      `SELECT id, title, description, tags, visibility, original_filename, mime_type, original_mime_type, file_size, sha256,
              document_type, metadata, text_status, rag_enabled, rag_status, rag_chunk_count, created_at, updated_at
         FROM documents WHERE owner_id = $1 ORDER BY id`,
      [userId],
    ) as Promise<Row[]>;
  }

  async files(userId: number): Promise<OwnedFile[]> {
    const rows = (await this.ds.query(
      `SELECT id, title, original_filename, mime_type, original_mime_type, file_size, storage_bytes, storage_key, original_storage_key
         FROM documents WHERE owner_id = $1 ORDER BY id`,
      [userId],
    )) as {
      id: number;
      title: string;
      original_filename: string | null;
      mime_type: string;
      original_mime_type: string | null;
      file_size: string;
      storage_bytes: string;
      storage_key: string;
      original_storage_key: string | null;
    }[];
    return rows.map((r) => ({
      id: r.id,
      title: r.title,
      originalFilename: r.original_filename,
      mimeType: r.mime_type,
      originalMimeType: r.original_mime_type,
      fileSize: Number(r.file_size),
      storageBytes: Number(r.storage_bytes),
      storageKey: r.storage_key,
      originalStorageKey: r.original_storage_key,
    }));
  }

  collections(userId: number): Promise<Row[]> {
    return this.ds.query(
      `SELECT c.id, c.name, c.description, c.created_at, c.updated_at,
              COALESCE((SELECT json_agg(cd.document_id ORDER BY cd.document_id) FROM collection_documents cd WHERE cd.collection_id = c.id), '[]'::json) AS document_ids
         FROM collections c WHERE c.owner_id = $1 ORDER BY c.id`,
      [userId],
    ) as Promise<Row[]>;
  }

  prompts(userId: number): Promise<Row[]> {
    return this.ds.query('SELECT * FROM prompts WHERE owner_id = $1 ORDER BY id', [userId]) as Promise<Row[]>;
  }

  classificationJobs(userId: number): Promise<Row[]> {
    return this.ds.query('SELECT job_id, collection_id, job_type, document_ids, created_at FROM classification_jobs WHERE user_id = $1 ORDER BY created_at', [userId]) as Promise<Row[]>;
  }

  storageUsage(userId: number): Promise<Row[]> {
    return this.ds.query('SELECT used_bytes, updated_at FROM user_storage_usage WHERE user_id = $1', [userId]) as Promise<Row[]>;
  }

  /** The router jobs of the user's classification jobs (the router keeps no user id). */
  async classificationJobIds(userId: number): Promise<string[]> {
    const rows = (await this.ds.query('SELECT job_id FROM classification_jobs WHERE user_id = $1', [userId])) as { job_id: string }[];
    return rows.map((r) => r.job_id);
  }

  /**
   * Every row of the module the user owns, in one transaction; answers the
   * counts. Chunks and collection links go with their documents.
   */
  async deleteAll(userId: number): Promise<Record<string, number>> {
    return this.ds.transaction(async (m) => {
      const del = async (sql: string) => returnedRows<Row>(await m.query(sql, [userId]));
      return {
        documents: (await del('DELETE FROM documents WHERE owner_id = $1 RETURNING id')).length,
        collections: (await del('DELETE FROM collections WHERE owner_id = $1 RETURNING id')).length,
        prompts: (await del('DELETE FROM prompts WHERE owner_id = $1 RETURNING id')).length,
        classificationJobs: (await del('DELETE FROM classification_jobs WHERE user_id = $1 RETURNING job_id')).length,
        storageUsage: (await del('DELETE FROM user_storage_usage WHERE user_id = $1 RETURNING user_id')).length,
      };
    });
  }
}
