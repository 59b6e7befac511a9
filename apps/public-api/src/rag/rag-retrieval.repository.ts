import type { DataSource } from 'typeorm';
import type { Visibility } from '../documents';
import { pgvectorCandidatesSql, pgvectorSimilaritySql } from './pgvector';
import { decodeFloat4Array, dot, type FullTextPlan, fuse, planFullText, type Ranked, unpackFloat32 } from './ranking';
import { TermStatsRepository } from './term-stats.repository';

export interface RetrievalSettings {
  /** Chunks a full-text scan reads and scores at most, of the caller's and of the global ones each; also the chunk count up to which the rarest words alone drive it. */
  candidateCap: number;
  /** Best full-text candidates kept (re-ranked with ts_rank_cd); they are also vector-scored. */
  ftsCandidates: number;
  /** Extra vector candidates: the caller's most recently indexed visible chunks (plain PostgreSQL) or the nearest ones (pgvector). */
  vectorCandidates: number;
  /** Reciprocal-rank-fusion constant. */
  rrfK: number;
  /** Words of a question used at most. */
  maxTerms: number;
}

export const DEFAULT_RETRIEVAL_SETTINGS: RetrievalSettings = { candidateCap: 400, ftsCandidates: 100, vectorCandidates: 200, rrfK: 60, maxTerms: 16 };

export interface RetrievalQuery {
  userId: number;
  /** The question as typed. */
  text: string;
  /** The question's L2-normalised embedding and the model that made it; null: full-text only. */
  embedding: { vector: number[]; model: string } | null;
  limit: number;
  /** Only chunks of these documents (an agent's key holders: the collection made public to it, issue 13 item 11). */
  onlyDocumentIds?: number[];
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

interface VectorRow {
  id: string | number;
  /** Packed float32 (embedding_f32), or for rows written before it, the real[] in binary (array_send). */
  bin: Buffer | null;
  emb: Buffer | null;
}

/** Cosine similarity of a candidate with the question (both normalised); null without a vector of the same size. */
function similarity(row: VectorRow, vector: number[]): number | null {
  const v = row.bin ? unpackFloat32(row.bin) : row.emb ? decodeFloat4Array(row.emb) : null;
  const sim = v ? dot(v, vector) : null;
  return sim !== null && Number.isFinite(sim) ? sim : null;
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
 * Only chunks of documents the caller may see, their own or global ones, are
 * ever candidates: this condition is in the WHERE clause of every scan (chunk
 * alias c; $1 is the caller). Chunks carry their document's owner and
 * visibility, so it needs no join.
 */
const VISIBLE = `(c.owner_id = $1 OR c.visibility = 'global')`;
/** Documents RAG answers from: switched on, by either field (PATCH /documents/{id}/rag-status may set one alone). */
const SERVED = `d.rag_enabled AND d.rag_status <> 'disabled'`;

const VECTOR_BYTES = 'c.embedding_f32 AS bin, CASE WHEN c.embedding_f32 IS NULL THEN array_send(c.embedding) END AS emb';

/**
 * Hybrid retrieval.
 *
 * Full text: the question's english lexemes, weighted by IDF (planner
 * statistics and capped counts, see TermStatsRepository). The rarest words
 * drive a capped scan of visible chunks, which are scored by the
 * IDF-weighted words they hold; the best `ftsCandidates` are re-ranked adding
 * ts_rank_cd over all words (the document title counts four times, weight B).
 * When that finds too little, chunks holding every word, then any word, are
 * scanned (see planFullText).
 *
 * Vectors (when the question has an embedding): the full-text candidates
 * plus a bounded pre-filter, the caller's `vectorCandidates` most recently
 * indexed visible chunks (own and global, one index scan each). Plain
 * PostgreSQL has no vector arithmetic: a dot product in SQL (unnest) costs
 * about 0.13 ms per 256-dimension vector, so the candidates' packed vectors
 * are read and scored here. With pgvector, the nearest visible chunks come
 * from its index and are scored in SQL (pgvector.ts).
 *
 * Candidates of documents switched off for RAG are dropped, then reciprocal
 * rank fusion picks the best `limit`.
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
      const { total, terms } = await this.stats.frequencies(lexemes, q.userId, settings.candidateCap + 1);
      plan = planFullText(terms, total, settings.candidateCap);
    }
    if (!plan && !q.embedding) return [];
    // The full-text scans and the vector pre-filter are independent: both at once, on two connections.
    const [fts, pool] = await Promise.all([this.fullText(q, plan), q.embedding ? this.vectorPool(q, q.embedding) : Promise.resolve(new Map<number, number>())]);
    // Full-text candidates are vector-scored too, from the vectors their scan brought along.
    if (q.embedding) for (const c of fts) if (c.sim !== null && !pool.has(c.id)) pool.set(c.id, c.sim);
    const ranked = fuse(
      fts.map((c) => c.id),
      pool,
      settings.rrfK,
      q.limit,
    );
    return this.details(q.userId, ranked, q.onlyDocumentIds ?? null);
  }

  /** Full-text candidates, best first: the plan's scans in order until they found enough. */
  private async fullText(q: RetrievalQuery, plan: FullTextPlan | null): Promise<{ id: number; rank: number; sim: number | null }[]> {
    if (!plan) return [];
    const found = new Map<number, { id: number; rank: number; sim: number | null }>();
    for (const scan of plan.scans) {
      // The scores are comparable across scans: widening only adds candidates.
      for (const r of await this.scan(q.userId, plan, scan, q.embedding?.model ?? null)) {
        found.set(Number(r.id), { id: Number(r.id), rank: Number(r.rank), sim: q.embedding ? similarity(r, q.embedding.vector) : null });
      }
      if (found.size >= q.limit) break;
    }
    return [...found.values()].sort((a, b) => b.rank - a.rank || a.id - b.id).slice(0, this.settings.ftsCandidates);
  }

  /**
   * One capped scan of the caller's chunks and of the global ones holding
   * the scan's words, scored by the IDF-weighted words they hold, the best
   * re-ranked with ts_rank_cd; chunks of documents switched off for RAG
   * (PATCH /documents/{id}/rag-status) are dropped, and the rest come with
   * their vectors when `model` is given. Each half is ordered by its index
   * (newest first), so the planner reads a few chunks through the GIN index
   * for rare words, and stops early in the visibility index for common ones
   * (where any bounded subset is as good as another).
   */
  private async scan(userId: number, plan: FullTextPlan, tsquery: string, model: string | null): Promise<(VectorRow & { rank: number })[]> {
    const { candidateCap, ftsCandidates } = this.settings;
    const params: unknown[] = [userId, tsquery, candidateCap, plan.anyTerm, ftsCandidates, model];
    const coverage = plan.terms
      .map((t) => {
        params.push(t.query, t.weight);
        return `CASE WHEN c.tsv @@ $${params.length - 1}::tsquery THEN $${params.length}::float8 ELSE 0 END`;
      })
      .join(' + ');
    const half = (where: string, order: string) => `(SELECT c.id, c.document_id, c.tsv, ${coverage} AS cov FROM rag_chunks c WHERE ${where} AND c.tsv @@ $2::tsquery ORDER BY ${order} LIMIT $3)`;
    return (await this.ds.query(
      `SELECT best.id, best.cov + ts_rank_cd(best.tsv, $4::tsquery, 32) AS rank,
              CASE WHEN c.embedding_model = $6 THEN c.embedding_f32 END AS bin,
              CASE WHEN c.embedding_model = $6 AND c.embedding_f32 IS NULL THEN array_send(c.embedding) END AS emb
       FROM (
         SELECT id, document_id, tsv, cov FROM (
           ${half('c.owner_id = $1', 'c.owner_id, c.id DESC')}
           UNION ALL
           ${half("c.visibility = 'global' AND c.owner_id <> $1", 'c.id DESC')}
         ) cand ORDER BY cov DESC, id LIMIT $5
       ) best
       JOIN documents d ON d.id = best.document_id AND ${SERVED}
       JOIN rag_chunks c ON c.id = best.id`,
      params,
    )) as (VectorRow & { rank: number })[];
  }

  /**
   * The bounded vector pre-filter with similarities: on plain PostgreSQL the
   * caller's most recently indexed visible chunks (own and global, from their
   * indexes) scored here; with pgvector the nearest visible ones by its index.
   */
  private async vectorPool(q: RetrievalQuery, embedding: { vector: number[]; model: string }): Promise<Map<number, number>> {
    const limit = this.settings.vectorCandidates;
    const out = new Map<number, number>();
    if (await this.pgvector()) {
      const size = embedding.vector.length;
      const rows = (await this.ds.query(
        `SELECT c.id, ${pgvectorSimilaritySql(size, '$4::real[]')} AS sim
         FROM rag_chunks c JOIN documents d ON d.id = c.document_id AND ${SERVED}
         WHERE c.id IN (${pgvectorCandidatesSql(size, '$4::real[]', '$2', '$3', VISIBLE)})`,
        [q.userId, embedding.model, limit, `{${embedding.vector.join(',')}}`],
      )) as { id: string | number; sim: number }[];
      for (const r of rows) out.set(Number(r.id), Number(r.sim));
      return out;
    }
    const rows = (await this.ds.query(
      `SELECT c.id, ${VECTOR_BYTES}
       FROM (
         (SELECT id FROM rag_chunks WHERE owner_id = $1 ORDER BY owner_id, id DESC LIMIT $3)
         UNION
         (SELECT id FROM rag_chunks WHERE visibility = 'global' ORDER BY id DESC LIMIT $3)
         ORDER BY id DESC LIMIT $3
       ) r JOIN rag_chunks c ON c.id = r.id JOIN documents d ON d.id = c.document_id AND ${SERVED}
       WHERE c.embedding_model = $2 AND ${VISIBLE}`,
      [q.userId, embedding.model, limit],
    )) as VectorRow[];
    for (const r of rows) {
      const sim = similarity(r, embedding.vector);
      if (sim !== null) out.set(Number(r.id), sim);
    }
    return out;
  }

  /**
   * The chunks' text and documents, in fused order (visibility checked again; with `onlyDocumentIds`
   * the chunks of other documents are dropped here, before any text is read).
   */
  private async details(userId: number, ranked: Ranked[], onlyDocumentIds: number[] | null): Promise<RetrievedChunk[]> {
    if (ranked.length === 0) return [];
    const rows = (await this.ds.query(
      `SELECT c.id, c.document_id, d.title, d.visibility, d.global_key, c.chunk_index, c.page, c.content
       FROM rag_chunks c JOIN documents d ON d.id = c.document_id
       WHERE c.id = ANY($2::bigint[]) AND ${VISIBLE} AND ${SERVED}
         AND ($3::int[] IS NULL OR c.document_id = ANY($3::int[]))`,
      [userId, ranked.map((r) => r.id), onlyDocumentIds],
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
