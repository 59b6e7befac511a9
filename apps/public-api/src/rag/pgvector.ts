/**
 * The optional pgvector path, kept apart from the plain-PostgreSQL code.
 *
 * Embeddings always live in `rag_chunks.embedding real[]` (the plain path
 * scores them with a dot product in SQL). Where the `vector` extension was
 * installable, migration 1764000000051 added `embedding_vec vector` with an
 * HNSW index per common size; then chunks are written to both columns and
 * the vector candidates come from an index-ordered scan instead of the
 * bounded recent-chunks pre-filter. Nothing else differs.
 */

/** The value written to embedding_vec for an embedding expression of type real[]. */
export function pgvectorWriteColumn(embeddingExpr: string): string {
  return `CASE WHEN ${embeddingExpr} IS NULL THEN NULL ELSE (${embeddingExpr})::vector END`;
}

/** Dimensions are interpolated into casts (the HNSW indexes are per size): only a plain integer may pass. */
function dims(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 16000) throw new Error(`invalid embedding size ${n}`);
  return n;
}

/**
 * The vector candidates with pgvector: the caller's visible chunks nearest to
 * the query embedding (`$q` is its real[] parameter, `$model` the embedding
 * model), in index order. `visible` is the same WHERE fragment the full-text
 * candidates use.
 */
export function pgvectorCandidatesSql(size: number, q: string, model: string, limit: string, visible: string): string {
  const d = dims(size);
  return `SELECT c.id FROM rag_chunks c
    WHERE vector_dims(c.embedding_vec) = ${d} AND c.embedding_model = ${model} AND ${visible}
    ORDER BY (c.embedding_vec::vector(${d})) <=> (${q}::vector(${d}))
    LIMIT ${limit}`;
}

/** Cosine similarity of a candidate with pgvector (chunk alias c). */
export function pgvectorSimilaritySql(size: number, q: string): string {
  const d = dims(size);
  return `1 - ((c.embedding_vec::vector(${d})) <=> (${q}::vector(${d})))`;
}
