/**
 * The pure parts of hybrid retrieval: which question words drive the
 * full-text candidate scan, their weights, vector arithmetic, and reciprocal
 * rank fusion. The SQL lives in rag-retrieval.repository.ts.
 */

export interface TermFrequency {
  /** An english lexeme, as to_tsvector('english', ...) makes it. */
  lexeme: string;
  /** Chunks holding it (an estimate from the planner statistics, or a capped count). */
  df: number;
}

export interface WeightedTerm {
  /** The lexeme as a tsquery literal, e.g. `'leav'`. */
  query: string;
  /** BM25's inverse document frequency: rare words weigh more. */
  weight: number;
}

export interface FullTextPlan {
  /**
   * tsqueries of the candidate scan, tried in order while they find fewer
   * chunks than asked for: OR of the selective words; AND of every word; OR
   * of every word (capped).
   */
  scans: string[];
  /** OR of every word, for ts_rank_cd. */
  anyTerm: string;
  terms: WeightedTerm[];
}

/** The lexeme as a quoted tsquery operand (quotes doubled, backslashes escaped). */
export function tsqueryLiteral(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

export function idf(df: number, total: number): number {
  const n = Math.max(total, df, 1);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * Plans the full-text stage. Every word counts in the score (weighted by
 * IDF), but only the selective ones drive the first candidate scan: the
 * rarest words are taken while their chunks add up to at most `budget`, so
 * that a question full of everyday words ("policy", "employee") does not rank
 * the whole corpus. When that finds too little (the rare words are in no
 * chunk the caller sees) or every word is common, chunks holding all the
 * words come next, then chunks holding any (the scan is capped).
 */
export function planFullText(terms: TermFrequency[], total: number, budget: number): FullTextPlan | null {
  // A word in no chunk the caller sees can neither find nor rank anything.
  const unique = [...new Map(terms.filter((t) => t.df > 0).map((t) => [t.lexeme, t])).values()];
  if (unique.length === 0) return null;
  const sorted = [...unique].sort((a, b) => a.df - b.df || a.lexeme.localeCompare(b.lexeme));
  const selective: TermFrequency[] = [];
  let sum = 0;
  for (const t of sorted) {
    if (selective.length > 0 && sum + t.df > budget) break;
    selective.push(t);
    sum += t.df;
  }
  const literal = (t: TermFrequency) => tsqueryLiteral(t.lexeme);
  const anyTerm = sorted.map(literal).join(' | ');
  const scans: string[] = [];
  if ((sorted[0]?.df ?? 0) <= budget || sorted.length === 1) scans.push(selective.map(literal).join(' | '));
  if (sorted.length > 1) scans.push(sorted.map(literal).join(' & '));
  if (!scans.includes(anyTerm)) scans.push(anyTerm);
  return { scans, anyTerm, terms: sorted.map((t) => ({ query: literal(t), weight: idf(t.df, total) })) };
}

/** A vector as packed little-endian float32 bytes (rag_chunks.embedding_f32). */
export function packFloat32(vector: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i += 1) out.writeFloatLE(vector[i] as number, i * 4);
  return out;
}

export function unpackFloat32(buf: Buffer): Float32Array {
  const n = Math.floor(buf.length / 4);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 1) out[i] = buf.readFloatLE(i * 4);
  return out;
}

/** Decodes PostgreSQL's binary array format (array_send) of a one-dimensional real[] without NULLs. */
export function decodeFloat4Array(buf: Buffer): Float32Array | null {
  if (buf.length < 12) return null;
  const ndim = buf.readInt32BE(0);
  const hasNull = buf.readInt32BE(4);
  if (ndim !== 1 || hasNull !== 0 || buf.length < 20) return ndim === 0 ? new Float32Array(0) : null;
  const n = buf.readInt32BE(12);
  if (buf.length < 20 + n * 8) return null;
  const out = new Float32Array(n);
  for (let i = 0, at = 20; i < n; i += 1, at += 8) out[i] = buf.readFloatBE(at + 4);
  return out;
}

/** Dot product (cosine similarity for L2-normalised vectors); null when the sizes differ. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  if (a.length !== b.length || a.length === 0) return null;
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += (a[i] as number) * (b[i] as number);
  return s;
}

export interface Ranked {
  id: number;
  /** 1-based rank in the full-text ranking. */
  ftsRank: number | null;
  /** 1-based rank by similarity. */
  vectorRank: number | null;
  similarity: number | null;
  score: number;
}

/**
 * Reciprocal rank fusion: each ranking adds 1 / (k + rank). `fts` is in rank
 * order; `vectors` maps candidates to similarity (only positive ones rank).
 */
export function fuse(fts: number[], vectors: Map<number, number>, k: number, limit: number): Ranked[] {
  const out = new Map<number, Ranked>();
  fts.forEach((id, i) => out.set(id, { id, ftsRank: i + 1, vectorRank: null, similarity: null, score: 1 / (k + i + 1) }));
  [...vectors.entries()]
    .filter(([, sim]) => sim > 0)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .forEach(([id, sim], i) => {
      const entry = out.get(id) ?? { id, ftsRank: null, vectorRank: null, similarity: null, score: 0 };
      entry.vectorRank = i + 1;
      entry.similarity = sim;
      entry.score += 1 / (k + i + 1);
      out.set(id, entry);
    });
  return [...out.values()].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, limit);
}
