import type { DataSource } from 'typeorm';
import type { Visibility } from '../documents';
import { pgvectorCandidatesSql, pgvectorSimilaritySql } from './pgvector';
import { decodeFloat4Array, dot, type FullTextPlan, fuse, planFullText, type Ranked, unpackFloat32 } from './ranking';
import { TermStatsRepository } from './term-stats.repository';

export interface RetrievalSettings {
  /** Full-text candidates scored (IDF-weighted word coverage) at most. */
  candidateCap: number;
  /** Chunks the selective words of a question may reach before the common ones stop driving the scan. */
  termBudget: number;
  /** Best full-text candidates kept (re-ranked with ts_rank_cd); they are also vector-scored. */
  ftsCandidates: number;
  /** Extra vector candidates: the caller's most recently indexed visible chunks (plain PostgreSQL) or the nearest ones (pgvector). */
  vectorCandidates: number;
  /** Reciprocal-rank-fusion constant. */
  rrfK: number;
  /** Words of a question used at most. */
  maxTerms: number;
}

export const DEFAULT_RETRIEVAL_SETTINGS: RetrievalSettings = { candidateCap: 1500, termBudget: 1000, ftsCandidates: 100, vectorCandidates: 200, rrfK: 60, maxTerms: 16 };

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


/** The packed vector, or for a row written before embedding_f32 existed, the real[] in binary. */
const VECTOR_BYTES = 'c.embedding_f32 AS bin, CASE WHEN c.embedding_f32 IS NULL THEN array_send(c.embedding) END AS emb';

interface VectorRow {
  id: string | number;
  bin: Buffer | null;
  emb: Buffer | null;
}

interface ChunkRow {
  id: string | number;
  document_id: number;
  title: string;
  visibility: Visibility;
  global_key: string | null;
  chunk_index: number;
  page: number | null;
  content: string;
}

/**
 * Only chunks of documents the caller may see (own or global) and that are
 * switched on for RAG are ever candidates: this condition is part of every
 * scan's WHERE clause (chunk alias c; $1 is the caller).
 */
const VISIBLE = `(c.owner_id = $1 OR c.visibility = 'global') AND EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id AND d.rag_enabled)`;

/**
 * Hybrid retrieval.
 *
 * Full text: the question's english lexemes, weighted by IDF (planner
 * statistics, see TermStatsRepository). The selective words drive a GIN scan
 * of at most `candidateCap` visible chunks, scored by the IDF-weighted words
 * they hold; the best `ftsCandidates` are re-ranked adding ts_rank_cd over all
 * words (the document title counts four times, weight B).
 *
 * Vectors (when the question has an embedding): the full-text candidates
 * plus a bounded pre-filter, the caller's `vectorCandidates` most recently
 * indexed visible chunks (own and global, two index scans), with embeddings
 * of the same model. Plain PostgreSQL has no vector arithmetic, and a dot
 * product in SQL (unnest) costs about 0.13 ms per 256-dimension vector, so
 * these candidates' vectors are fetched in binary (array_send) and scored
 * here; with pgvector the nearest chunks come from its index and are scored
 * in SQL (pgvector.ts).
 *
 * Reciprocal rank fusion of both rankings, then the best `limit` chunks.
 */
export class RagRetrievalRepository {
  private readonly stats: TermStatsRepository;

  constructor(
    private readonly ds: DataSource,
    private readonly settings: RetrievalSettings = DEFAULT_RETRIEVAL_SETTINGS,
    private readonly pgvector: () => Promise<boolean> = async () => false,
    stats?: TermStatsRepository,
  ) {
    this.stats = stats ?? new TermStatsRepository(ds);
  }

  async search(q: RetrievalQuery): Promise<RetrievedChunk[]> {
    const { settings } = this;
    const lexemes = await this.stats.lexemes(q.text, settings.maxTerms);
    let plan: FullTextPlan | null = null;
    if (lexemes.length > 0) {
      const { total, terms } = await this.stats.frequencies(lexemes, q.userId);
      plan = planFullText(terms, total, settings.termBudget);
    }
    if (!plan && !q.embedding) return [];
    // The full-text scan and the vector pre-filter are independent: both at once, on two connections.
    const [fts, pool] = await Promise.all([this.fullText(q, plan), q.embedding ? this.vectorPool(q, q.embedding) : Promise.resolve(new Map<number, number>())]);
    if (q.embedding) {
      // Full-text candidates are vector-scored too.
      const missing = fts.filter((id) => !pool.has(id));
      for (const [id, sim] of await this.similarities(q.userId, missing, q.embedding)) pool.set(id, sim);
    }
    return this.details(q.userId, fuse(fts, pool, settings.rrfK, q.limit));
  }

  /** Full-text candidate ids, best first: the plan's scans in order until one finds enough. */
  private async fullText(q: RetrievalQuery, plan: FullTextPlan | null): Promise<number[]> {
    if (!plan) return [];
    const ranks = new Map<number, number>();
    for (const scan of plan.scans) {
      // The scores are comparable across scans: widening only adds candidates.
      for (const r of await this.scan(q.userId, plan, scan)) ranks.set(Number(r.id), Number(r.rank));
      if (ranks.size >= q.limit) break;
    }
    return [...ranks.entries()]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, this.settings.ftsCandidates)
      .map(([id]) => id);
  }

  /**
   * One capped GIN scan of visible chunks, scored by the IDF-weighted words
   * they hold; the best re-ranked with ts_rank_cd. Sequential scans are off
   * for this statement: with a LIMIT the planner bets on finding common words
   * early in the heap, and a chunk table is too wide for that bet.
   */
  private async scan(userId: number, plan: FullTextPlan, tsquery: string): Promise<{ id: string | number; rank: number }[]> {
    const { candidateCap, ftsCandidates } = this.settings;
    const params: unknown[] = [userId, tsquery, candidateCap, plan.anyTerm, ftsCandidates];
    const coverage = plan.terms
      .map((t) => {
        params.push(t.query, t.weight);
        return `CASE WHEN c.tsv @@ $${params.length - 1}::tsquery THEN $${params.length}::float8 ELSE 0 END`;
      })
      .join(' + ');
    const sql = `
      SELECT id, cov + ts_rank_cd(tsv, $4::tsquery, 32) AS rank
      FROM (
        SELECT id, tsv, cov FROM (
          SELECT c.id, c.tsv, ${coverage} AS cov FROM rag_chunks c
          WHERE c.tsv @@ $2::tsquery AND ${VISIBLE}
          LIMIT $3
        ) cand ORDER BY cov DESC, id LIMIT $5
      ) best`;
    return this.ds.transaction(async (m) => {
      await m.query('SET LOCAL enable_seqscan = off');
      return (await m.query(sql, params)) as { id: string | number; rank: number }[];
    });
  }

  /**
   * The bounded vector pre-filter with its similarities: on plain PostgreSQL
   * the caller's most recently indexed visible chunks (own and global, each
   * from its index), scored here from their binary vectors; with pgvector the
   * nearest visible chunks by its index, scored in SQL.
   */
  private async vectorPool(q: RetrievalQuery, embedding: { vector: number[]; model: string }): Promise<Map<number, number>> {
    const limit = this.settings.vectorCandidates;
    const out = new Map<number, number>();
    if (await this.pgvector()) {
      const size = embedding.vector.length;
      const rows = (await this.ds.query(
        `SELECT c.id, ${pgvectorSimilaritySql(size, '$4::real[]')} AS sim FROM rag_chunks c WHERE c.id IN (${pgvectorCandidatesSql(size, '$4::real[]', '$2', '$3', VISIBLE)})`,
        [q.userId, embedding.model, limit, `{${embedding.vector.join(',')}}`],
      )) as { id: string | number; sim: number }[];
      for (const r of rows) out.set(Number(r.id), Number(r.sim));
      return out;
    }
    // The index scans take the newest rows first; the model and RAG-enabled checks follow on those few.
    const rows = (await this.ds.query(
      `SELECT c.id, ${VECTOR_BYTES}
       FROM rag_chunks c
       WHERE c.id IN (
         SELECT c.id FROM (
           (SELECT id FROM rag_chunks WHERE owner_id = $1 ORDER BY owner_id, id DESC LIMIT $3)
           UNION
           (SELECT id FROM rag_chunks WHERE visibility = 'global' ORDER BY id DESC LIMIT $3)
         ) r JOIN rag_chunks c ON c.id = r.id
         WHERE c.embedding_model = $2 AND ${VISIBLE}
         ORDER BY c.id DESC LIMIT $3)`,
      [q.userId, embedding.model, limit],
    )) as VectorRow[];
    return this.score(rows, embedding.vector, out);
  }

  /** Similarities of the given visible chunks (the full-text candidates the pre-filter missed). */
  private async similarities(userId: number, ids: number[], embedding: { vector: number[]; model: string }): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (ids.length === 0) return out;
    if (await this.pgvector()) {
      const rows = (await this.ds.query(
        `SELECT c.id, ${pgvectorSimilaritySql(embedding.vector.length, '$4::real[]')} AS sim FROM rag_chunks c
         WHERE c.id = ANY($2::bigint[]) AND c.embedding_model = $3 AND ${VISIBLE}`,
        [userId, ids, embedding.model, `{${embedding.vector.join(',')}}`],
      )) as { id: string | number; sim: number }[];
      for (const r of rows) out.set(Number(r.id), Number(r.sim));
      return out;
    }
    const rows = (await this.ds.query(
      `SELECT c.id, ${VECTOR_BYTES} FROM rag_chunks c WHERE c.id = ANY($2::bigint[]) AND c.embedding_model = $3 AND ${VISIBLE}`,
      [userId, ids, embedding.model],
    )) as VectorRow[];
    return this.score(rows, embedding.vector, out);
  }

  private score(rows: VectorRow[], vector: number[], out: Map<number, number>): Map<number, number> {
    for (const r of rows) {
      const v = r.bin ? unpackFloat32(r.bin) : r.emb ? decodeFloat4Array(r.emb) : null;
      const sim = v ? dot(v, vector) : null;
      if (sim !== null && Number.isFinite(sim)) out.set(Number(r.id), sim);
    }
    return out;
  }

  /** The chunks' text and documents, in fused order (visibility checked again). */
  private async details(userId: number, ranked: Ranked[]): Promise<RetrievedChunk[]> {
    if (ranked.length === 0) return [];
    const rows = (await this.ds.query(
      `SELECT c.id, c.document_id, d.title, d.visibility, d.global_key, c.chunk_index, c.page, c.content
       FROM rag_chunks c JOIN documents d ON d.id = c.document_id
       WHERE c.id = ANY($2::bigint[]) AND (c.owner_id = $1 OR c.visibility = 'global') AND d.rag_enabled`,
      [userId, ranked.map((r) => r.id)],
    )) as ChunkRow[];
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    return ranked.flatMap((r) => {
      const c = byId.get(r.id);
      if (!c) return [];
      return [
        {
          chunkId: r.id,
          documentId: c.document_id,
          documentTitle: c.title,
          visibility: c.visibility,
          globalKey: c.global_key,
          chunkIndex: c.chunk_index,
          page: c.page,
          content: c.content,
          score: r.score,
          ftsRank: r.ftsRank,
          vectorRank: r.vectorRank,
          similarity: r.similarity,
        },
      ];
    });
  }
}
