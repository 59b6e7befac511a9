import { DataSource } from 'typeorm';
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

const DOCUMENT_COLUMNS = 'd.id, d.title, d.mime_type, d.visibility, d.global_key, d.text_status';

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
