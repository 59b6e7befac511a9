import type { DataSource } from 'typeorm';
import type { Visibility } from '../documents';
import { pgvectorCandidatesSql, pgvectorSimilaritySql } from './pgvector';

export interface RetrievalSettings {
  /** Full-text candidates kept (best ts_rank_cd first); they are also vector-scored. */
  ftsCandidates: number;
  /** Extra vector candidates: the caller's most recently indexed visible chunks (plain PostgreSQL) or the nearest ones (pgvector). */
  vectorCandidates: number;
  /** Reciprocal-rank-fusion constant. */
  rrfK: number;
}

export const DEFAULT_RETRIEVAL_SETTINGS: RetrievalSettings = { ftsCandidates: 100, vectorCandidates: 200, rrfK: 60 };

export interface RetrievalQuery {
  userId: number;
  /** The question as typed. */
  text: string;
  /** The question's L2-normalised embedding and the model that made it; null: full-text only. */
  embedding: { vector: number[]; model: string } | null;
  limit: number;
}

export interface RetrievedChunk {
  chunkId: number;
  documentId: number;
  documentTitle: string;
  visibility: Visibility;
  globalKey: string | null;
  chunkIndex: number;
  page: number | null;
  content: string;
  /** Reciprocal-rank-fusion score. */
  score: number;
  /** 1-based rank in the full-text ranking, null when not a full-text candidate. */
  ftsRank: number | null;
  /** 1-based rank by vector similarity, null when not vector-scored (or similarity <= 0). */
  vectorRank: number | null;
  similarity: number | null;
}

interface Row {
  id: string | number;
  document_id: number;
  title: string;
  visibility: Visibility;
  global_key: string | null;
  chunk_index: number;
  page: number | null;
  content: string;
  score: number | string;
  fts_r: string | number | null;
  vec_r: string | number | null;
  sim: number | string | null;
}

const MAX_QUERY_TERMS = 32;

/**
 * The question's words joined with `or`, for websearch_to_tsquery: a chunk
 * matching any word is a candidate, and ranking rewards those matching more.
 * Only letters and digits pass, so nothing the user types becomes an operator.
 */
export function orQueryText(text: string): string {
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w !== 'or' && w.length <= 64);
  return [...new Set(words)].slice(0, MAX_QUERY_TERMS).join(' or ');
}

/**
 * Only chunks of documents the caller may see (own or global) and that are
 * switched on for RAG are ever candidates: the condition is part of every
 * candidate scan's WHERE clause (chunk alias c; $1 is the caller).
 */
const VISIBLE = `(c.owner_id = $1 OR c.visibility = 'global') AND EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id AND d.rag_enabled)`;

/**
 * Hybrid retrieval in one SQL statement:
 *  1. full text: ts_rank_cd of the OR-ed question over the GIN-indexed tsvector, best `ftsCandidates`;
 *  2. vectors (when the question has an embedding): cosine (dot product of
 *     normalised vectors, in SQL over real[]) of the full-text candidates plus a
 *     bounded pre-filter, the caller's `vectorCandidates` most recently indexed
 *     visible chunks with embeddings of the same model (with pgvector: the
 *     nearest ones, by index);
 *  3. reciprocal rank fusion, sum of 1/(k + rank), best `limit`.
 */
export class RagRetrievalRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly settings: RetrievalSettings = DEFAULT_RETRIEVAL_SETTINGS,
    private readonly pgvector: () => Promise<boolean> = async () => false,
  ) {}

  async search(q: RetrievalQuery): Promise<RetrievedChunk[]> {
    const terms = orQueryText(q.text);
    if (!terms && !q.embedding) return [];
    const { ftsCandidates, vectorCandidates, rrfK } = this.settings;
    // $1 user, $2 terms, $3 fts limit, $4 rrf k, $5 limit; with vectors: $6 embedding, $7 model, $8 vector limit.
    const params: unknown[] = [q.userId, terms, ftsCandidates, rrfK, q.limit];
    const fts = `fts AS (
        SELECT c.id, ts_rank_cd(c.tsv, tq.q) AS rank
        FROM rag_chunks c, (SELECT websearch_to_tsquery('english', $2) AS q) tq
        WHERE $2 <> '' AND c.tsv @@ tq.q AND ${VISIBLE}
        ORDER BY rank DESC, c.id
        LIMIT $3
      ),
      fts_r AS (SELECT id, row_number() OVER (ORDER BY rank DESC, id) AS r FROM fts)`;
    let sql: string;
    if (!q.embedding) {
      sql = `WITH ${fts},
        fused AS (SELECT id, r AS fts_r, NULL::bigint AS vec_r, NULL::float8 AS sim, 1.0 / ($4 + r) AS score FROM fts_r ORDER BY score DESC, id LIMIT $5)`;
    } else {
      params.push(`{${q.embedding.vector.join(',')}}`, q.embedding.model, vectorCandidates);
      const size = q.embedding.vector.length;
      const usePgvector = await this.pgvector();
      const extra = usePgvector
        ? pgvectorCandidatesSql(size, '$6::real[]', '$7', '$8', VISIBLE)
        : // Own and global chunks come from two index scans (owner_id, id DESC) and (id DESC) WHERE global.
          `SELECT id FROM (
             (SELECT c.id FROM rag_chunks c WHERE c.owner_id = $1 AND c.embedding_model = $7 AND ${VISIBLE} ORDER BY c.id DESC LIMIT $8)
             UNION
             (SELECT c.id FROM rag_chunks c WHERE c.visibility = 'global' AND c.embedding_model = $7 AND ${VISIBLE} ORDER BY c.id DESC LIMIT $8)
           ) recent ORDER BY id DESC LIMIT $8`;
      const similarity = usePgvector ? pgvectorSimilaritySql(size, '$6::real[]') : `(SELECT sum(a * b) FROM unnest(c.embedding, $6::real[]) AS t(a, b))`;
      sql = `WITH ${fts},
        pool AS (SELECT id FROM fts UNION SELECT id FROM (${extra}) v),
        vec AS (
          SELECT c.id, ${similarity} AS sim
          FROM pool JOIN rag_chunks c ON c.id = pool.id
          WHERE c.embedding_model = $7 AND cardinality(c.embedding) = cardinality($6::real[])
        ),
        vec_r AS (SELECT id, sim, row_number() OVER (ORDER BY sim DESC, id) AS r FROM vec WHERE sim > 0),
        fused AS (
          SELECT coalesce(f.id, v.id) AS id, f.r AS fts_r, v.r AS vec_r, v.sim,
                 coalesce(1.0 / ($4 + f.r), 0) + coalesce(1.0 / ($4 + v.r), 0) AS score
          FROM fts_r f FULL OUTER JOIN vec_r v ON v.id = f.id
          ORDER BY score DESC, id
          LIMIT $5
        )`;
    }
    sql += `
      SELECT c.id, c.document_id, d.title, d.visibility, d.global_key, c.chunk_index, c.page, c.content, fused.score, fused.fts_r, fused.vec_r, fused.sim
      FROM fused JOIN rag_chunks c ON c.id = fused.id JOIN documents d ON d.id = c.document_id
      ORDER BY fused.score DESC, c.id`;
    const rows = (await this.ds.query(sql, params)) as Row[];
    const num = (v: string | number | null): number | null => (v === null ? null : Number(v));
    return rows.map((r) => ({
      chunkId: Number(r.id),
      documentId: r.document_id,
      documentTitle: r.title,
      visibility: r.visibility,
      globalKey: r.global_key,
      chunkIndex: r.chunk_index,
      page: r.page,
      content: r.content,
      score: Number(r.score),
      ftsRank: num(r.fts_r),
      vectorRank: num(r.vec_r),
      similarity: num(r.sim),
    }));
  }
}
