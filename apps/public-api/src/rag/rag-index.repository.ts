import type { DataSource, EntityManager } from 'typeorm';
import type { RagProcessingStatus, RagStatus, Visibility } from '../documents';
import { pgvectorWriteColumn } from './pgvector';
import { packFloat32 } from './ranking';

/** A document's RAG fields (spec 2.2, 3.5). */
export interface RagState {
  documentId: number;
  ownerId: number;
  ragEnabled: boolean;
  ragStatus: RagStatus;
  ragProcessingStatus: RagProcessingStatus | null;
  ragChunkCount: number;
  ragError: string | null;
  ragJobId: string | null;
  updatedAt: Date;
}

export type EnableOutcome =
  /** A new job was recorded; publish it (and restore `previous` if that fails). */
  | { kind: 'queued'; state: RagState; previous: RagState }
  /** Already indexed, queued or running, and no force: nothing to do. */
  | { kind: 'unchanged'; state: RagState };

/** A document claimed by an indexing job. */
export interface IndexClaim {
  documentId: number;
  ownerId: number;
  visibility: Visibility;
  title: string;
}

export interface NewChunk {
  index: number;
  page: number | null;
  heading: string | null;
  content: string;
  /** L2-normalised, or null when the chunk has no embedding. */
  embedding: number[] | null;
}

interface StateRow {
  id: number;
  owner_id: number;
  rag_enabled: boolean;
  rag_status: RagStatus;
  rag_processing_status: RagProcessingStatus | null;
  rag_chunk_count: number;
  rag_error: string | null;
  rag_job_id: string | null;
  updated_at: Date;
}

const STATE_COLUMNS = 'id, owner_id, rag_enabled, rag_status, rag_processing_status, rag_chunk_count, rag_error, rag_job_id, updated_at';

function toState(r: StateRow): RagState {
  return {
    documentId: r.id,
    ownerId: r.owner_id,
    ragEnabled: r.rag_enabled,
    ragStatus: r.rag_status,
    ragProcessingStatus: r.rag_processing_status,
    ragChunkCount: r.rag_chunk_count,
    ragError: r.rag_error,
    ragJobId: r.rag_job_id,
    updatedAt: r.updated_at,
  };
}

/** TypeORM's postgres driver answers UPDATE ... RETURNING with [rows, rowCount]. */
function returned<T>(raw: unknown): T[] {
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as T[];
  return raw as T[];
}

/** Start of a CASE: whether nobody switched the document off (PATCH /documents/{id}/rag-status) since indexing was asked for. */
const SWITCHED_ON = "CASE WHEN rag_enabled AND rag_status <> 'disabled'";

/** Rows per INSERT statement when chunks are written. */
const INSERT_BATCH = 500;

/** PostgreSQL text cannot hold NUL characters. */
function clean(s: string): string {
  return s.includes('\u0000') ? s.replace(/\u0000/g, '') : s;
}

/** The RAG columns of `documents` and the `rag_chunks` table, for enabling and indexing. */
export class RagIndexRepository {
  constructor(
    private readonly ds: DataSource,
    /** Whether rag_chunks has the pgvector column (see pgvector.ts). */
    private readonly pgvector: () => Promise<boolean> = async () => false,
  ) {}

  /** The document's RAG state; with `ownerId`, only when that user owns it. */
  async state(documentId: number, ownerId?: number): Promise<RagState | null> {
    const rows = (await this.ds.query(
      `SELECT ${STATE_COLUMNS} FROM documents WHERE id = $1 ${ownerId !== undefined ? 'AND owner_id = $2' : ''}`,
      ownerId !== undefined ? [documentId, ownerId] : [documentId],
    )) as StateRow[];
    return rows[0] ? toState(rows[0]) : null;
  }

  /**
   * Records a new indexing job for the owner's document, unless it is indexed,
   * queued or running and `force` is false (then an indexed document that was
   * switched off is switched back on). Null when the user owns no such document.
   */
  async requestIndexing(documentId: number, ownerId: number, jobId: string, force: boolean): Promise<EnableOutcome | null> {
    return this.ds.transaction(async (m) => {
      const rows = (await m.query(`SELECT ${STATE_COLUMNS} FROM documents WHERE id = $1 AND owner_id = $2 FOR UPDATE`, [documentId, ownerId])) as StateRow[];
      const row = rows[0];
      if (!row) return null;
      const previous = toState(row);
      const status = previous.ragProcessingStatus;
      if (!force && (status === 'queued' || status === 'processing')) {
        // Switched off (PATCH rag-status) while its job waits or runs: on again, and the job goes on.
        if (previous.ragEnabled && previous.ragStatus === 'processing') return { kind: 'unchanged', state: previous };
        const on = returned<StateRow>(await m.query(`UPDATE documents SET rag_enabled = true, rag_status = 'processing', updated_at = now() WHERE id = $1 RETURNING ${STATE_COLUMNS}`, [documentId]));
        return { kind: 'unchanged', state: on[0] ? toState(on[0]) : previous };
      }
      if (!force && status === 'completed') {
        if (previous.ragEnabled && previous.ragStatus === 'enabled') return { kind: 'unchanged', state: previous };
        const on = returned<StateRow>(await m.query(`UPDATE documents SET rag_enabled = true, rag_status = 'enabled', updated_at = now() WHERE id = $1 RETURNING ${STATE_COLUMNS}`, [documentId]));
        return { kind: 'unchanged', state: on[0] ? toState(on[0]) : previous };
      }
      const updated = returned<StateRow>(
        await m.query(
          `UPDATE documents SET rag_enabled = true, rag_status = 'processing', rag_processing_status = 'queued', rag_error = NULL, rag_job_id = $2, updated_at = now()
           WHERE id = $1 RETURNING ${STATE_COLUMNS}`,
          [documentId, jobId],
        ),
      );
      const state = updated[0];
      if (!state) throw new Error(`document ${documentId} vanished under its row lock`);
      return { kind: 'queued', state: toState(state), previous };
    });
  }

  /** Puts back the RAG fields a job replaced, when that job could not be queued (and nothing replaced it since). */
  async restore(previous: RagState, jobId: string): Promise<void> {
    await this.ds.query(
      `UPDATE documents SET rag_enabled = $3, rag_status = $4, rag_processing_status = $5, rag_error = $6, rag_job_id = $7
       WHERE id = $1 AND rag_job_id = $2`,
      [previous.documentId, jobId, previous.ragEnabled, previous.ragStatus, previous.ragProcessingStatus, previous.ragError, previous.ragJobId],
    );
  }

  /**
   * Marks the document `processing` for the job (its ragStatus too, unless it
   * was switched off meanwhile); null when the job is not the document's
   * current one (superseded, finished, or the document is gone).
   */
  async claim(documentId: number, jobId: string): Promise<IndexClaim | null> {
    const rows = returned<{ id: number; owner_id: number; visibility: Visibility; title: string }>(
      await this.ds.query(
        `UPDATE documents SET rag_processing_status = 'processing', rag_status = ${SWITCHED_ON} THEN 'processing' ELSE rag_status END, updated_at = now()
         WHERE id = $1 AND rag_job_id = $2 AND rag_processing_status IN ('queued', 'processing')
         RETURNING id, owner_id, visibility, title`,
        [documentId, jobId],
      ),
    );
    const r = rows[0];
    return r ? { documentId: r.id, ownerId: r.owner_id, visibility: r.visibility, title: r.title } : null;
  }

  /** Whether the job is still the document's current, unfinished one. */
  async isCurrent(documentId: number, jobId: string): Promise<boolean> {
    const rows = (await this.ds.query(`SELECT 1 FROM documents WHERE id = $1 AND rag_job_id = $2 AND rag_processing_status IN ('queued', 'processing')`, [documentId, jobId])) as unknown[];
    return rows.length > 0;
  }

  /**
   * Replaces the document's chunks with `chunks` and marks it completed, in
   * one transaction under the document's row lock: readers see the old chunks
   * or the new ones, never a mix. A document switched off while it was
   * indexed (PATCH rag-status) stays off. False (nothing written) when the
   * job is no longer the document's current one.
   */
  async replaceChunks(claim: IndexClaim, jobId: string, chunks: NewChunk[], embeddingModel: string | null): Promise<boolean> {
    const withVector = await this.pgvector();
    return this.ds.transaction(async (m) => {
      const locked = (await m.query(`SELECT 1 FROM documents WHERE id = $1 AND rag_job_id = $2 AND rag_processing_status IN ('queued', 'processing') FOR UPDATE`, [
        claim.documentId,
        jobId,
      ])) as unknown[];
      if (locked.length === 0) return false;
      await m.query('DELETE FROM rag_chunks WHERE document_id = $1', [claim.documentId]);
      for (let i = 0; i < chunks.length; i += INSERT_BATCH) await this.insertBatch(m, claim, chunks.slice(i, i + INSERT_BATCH), embeddingModel, withVector);
      await m.query(
        `UPDATE documents SET rag_processing_status = 'completed', rag_status = ${SWITCHED_ON} THEN 'enabled' ELSE 'disabled' END, rag_chunk_count = $2, rag_error = NULL, updated_at = now()
         WHERE id = $1`,
        [claim.documentId, chunks.length],
      );
      return true;
    });
  }

  /** Marks the job's document failed with the reason (a no-op when the job was superseded). */
  async fail(documentId: number, jobId: string, reason: string): Promise<boolean> {
    const rows = returned<{ id: number }>(
      await this.ds.query(
        `UPDATE documents SET rag_processing_status = 'failed', rag_status = 'failed', rag_error = $3, updated_at = now()
         WHERE id = $1 AND rag_job_id = $2 AND rag_processing_status IN ('queued', 'processing') RETURNING id`,
        [documentId, jobId, clean(reason).slice(0, 2000)],
      ),
    );
    return rows.length > 0;
  }

  /** How many chunks the document has (tests, status checks). */
  async chunkCount(documentId: number): Promise<number> {
    const rows = (await this.ds.query('SELECT count(*)::int AS n FROM rag_chunks WHERE document_id = $1', [documentId])) as { n: number }[];
    return rows[0]?.n ?? 0;
  }

  private async insertBatch(m: EntityManager, claim: IndexClaim, chunks: NewChunk[], model: string | null, withVector: boolean): Promise<void> {
    // One statement per batch: parallel arrays unnested into rows; embeddings travel as array literals and packed bytes.
    const embeddings = chunks.map((c) => (c.embedding ? `{${c.embedding.join(',')}}` : null));
    const packed = chunks.map((c) => (c.embedding ? `\\x${packFloat32(c.embedding).toString('hex')}` : null));
    await m.query(
      `INSERT INTO rag_chunks (document_id, owner_id, visibility, document_title, chunk_index, page, heading, content, embedding, embedding_f32, embedding_model${withVector ? ', embedding_vec' : ''})
       SELECT $1, $2, $3, $10, t.idx, t.page, t.heading, t.content, t.emb::real[], t.bin::bytea, CASE WHEN t.emb IS NULL THEN NULL ELSE $8::varchar END${withVector ? `, ${pgvectorWriteColumn('t.emb::real[]')}` : ''}
       FROM unnest($4::int[], $5::int[], $6::text[], $7::text[], $9::text[], $11::text[]) AS t(idx, page, heading, content, emb, bin)`,
      [
        claim.documentId,
        claim.ownerId,
        claim.visibility,
        chunks.map((c) => c.index),
        chunks.map((c) => c.page),
        chunks.map((c) => (c.heading === null ? null : clean(c.heading))),
        chunks.map((c) => clean(c.content)),
        model,
        embeddings,
        clean(claim.title).slice(0, 255),
        packed,
      ],
    );
  }
}

/** Probes once whether rag_chunks has the pgvector column (false on plain PostgreSQL). */
export function pgvectorProbe(database: DataSource): () => Promise<boolean> {
  let known: Promise<boolean> | undefined;
  return () => {
    known ??= database
      .query(
        `SELECT 1 FROM pg_extension e, information_schema.columns c
       WHERE e.extname = 'vector' AND c.table_schema = current_schema() AND c.table_name = 'rag_chunks' AND c.column_name = 'embedding_vec'`,
      )
      .then(
        (rows) => Array.isArray(rows) && rows.length > 0,
        () => {
          known = undefined;
          return false;
        },
      );
    return known;
  };
}
