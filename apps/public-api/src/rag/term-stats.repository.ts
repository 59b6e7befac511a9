import type { DataSource } from 'typeorm';
import { type TermFrequency, tsqueryLiteral } from './ranking';

interface Snapshot {
  at: number;
  total: number;
  /** Fraction of chunks holding each of the most common lexemes (ANALYZE's most_common_elems of rag_chunks.tsv). */
  freq: Map<string, number>;
  /** Assumed fraction for a lexeme not in the list: below the least common listed one. */
  floor: number;
}

/** A statistics-free table: exact counts, each capped (a word in more chunks than this is common anyway). */
const COUNT_CAP = 10000;

/**
 * How many chunks hold each word of a question, without scanning them: the
 * planner statistics PostgreSQL's ANALYZE (autovacuum) keeps for the tsvector
 * column list the most common lexemes with their frequencies; any other
 * lexeme is rarer than the least common of those. Read once per `ttlMs`.
 * Before the table was ever analyzed (small, new), words are counted
 * directly through the GIN index.
 */
export class TermStatsRepository {
  private snapshot: Snapshot | null | undefined;
  private loadedAt = 0;
  private loading: Promise<Snapshot | null> | undefined;

  constructor(
    private readonly ds: DataSource,
    private readonly ttlMs = 5 * 60 * 1000,
  ) {}

  /** The question's english lexemes (stop words dropped), in order of appearance, at most `max`. */
  async lexemes(text: string, max: number): Promise<string[]> {
    const rows = (await this.ds.query(`SELECT lexeme FROM unnest(to_tsvector('english', $1)) ORDER BY positions[1]`, [text])) as { lexeme: string }[];
    return rows.map((r) => r.lexeme).slice(0, max);
  }

  /**
   * How many chunks hold each lexeme: the statistics' estimate for common
   * ones; a direct count (through the GIN index, of chunks the user sees,
   * capped) for the others, which are rare or absent, so counting is cheap and
   * a word the user's chunks lack never drives the candidate scan.
   */
  async frequencies(lexemes: string[], userId: number, cap: number): Promise<{ total: number; terms: TermFrequency[] }> {
    const snap = await this.current();
    const known = new Map<string, number>();
    if (snap) for (const l of lexemes) if (snap.freq.has(l)) known.set(l, Math.max(1, Math.round((snap.freq.get(l) ?? 0) * snap.total)));
    const toCount = lexemes.filter((l) => !known.has(l));
    if (toCount.length > 0) {
      // With statistics, only whether a word stays under the scan's cap matters; without, counts also weigh the words.
      const limit = snap ? cap : COUNT_CAP;
      const rows = (await this.ds.query(
        `SELECT u.i, (SELECT count(*) FROM (SELECT 1 FROM rag_chunks c WHERE c.tsv @@ u.q::tsquery AND (c.owner_id = $2 OR c.visibility = 'global') LIMIT $3) s)::int AS n
         FROM unnest($1::text[]) WITH ORDINALITY AS u(q, i)`,
        [toCount.map(tsqueryLiteral), userId, limit],
      )) as { i: string | number; n: number }[];
      for (const r of rows) {
        const lexeme = toCount[Number(r.i) - 1];
        if (lexeme !== undefined) known.set(lexeme, r.n);
      }
    }
    let total = snap?.total ?? 0;
    if (!snap) {
      const totals = (await this.ds.query(`SELECT count(*)::int AS n FROM (SELECT 1 FROM rag_chunks LIMIT 1000000) s`)) as { n: number }[];
      total = totals[0]?.n ?? 0;
    }
    return { total, terms: lexemes.map((lexeme) => ({ lexeme, df: known.get(lexeme) ?? 0 })) };
  }

  private async current(): Promise<Snapshot | null> {
    const fresh = Date.now() - this.loadedAt < (this.snapshot ? this.ttlMs : Math.min(this.ttlMs, 30000));
    if (this.snapshot !== undefined && fresh) return this.snapshot;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<Snapshot | null> {
    const rows = (await this.ds.query(
      `SELECT array_to_json(s.most_common_elems::text::text[]) AS elems, array_to_json(s.most_common_elem_freqs) AS freqs,
              (SELECT reltuples FROM pg_class WHERE oid = 'rag_chunks'::regclass) AS total
       FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = 'rag_chunks' AND s.attname = 'tsv'`,
    )) as { elems: string[] | null; freqs: number[] | null; total: number | string }[];
    const r = rows[0];
    const total = Number(r?.total ?? 0);
    let snap: Snapshot | null = null;
    if (r && total > 0 && (r.elems?.length ?? 0) > 0) {
      const elems = r.elems ?? [];
      const freqs = r.freqs ?? [];
      const freq = new Map<string, number>();
      elems.forEach((e, i) => {
        const f = freqs[i];
        if (typeof f === 'number') freq.set(e, f);
      });
      // most_common_elem_freqs ends with the minimum and maximum frequency (and the null fraction).
      const listedMin = freqs.length > elems.length ? (freqs[elems.length] ?? 0) : Math.min(...freq.values());
      snap = { at: Date.now(), total, freq, floor: Math.max(1 / total, listedMin / 2) };
    }
    this.snapshot = snap;
    this.loadedAt = Date.now();
    return snap;
  }
}
