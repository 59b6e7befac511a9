// RAG: indexing throughput (pages per second through rag_index_queue, the
// worker in the public API, chunking, embeddings from the LLM service's local
// engine, chunk writes) and retrieval latency at 100,000 chunks (the hybrid
// SQL of RagRetrievalRepository, run here over the same database; chunks
// seeded with SQL, their embeddings made by the LLM service).
// Runs the built public API and LLM service (dist/) as processes of their own.
import { Pool } from 'pg';
import { normalise } from '../apps/public-api/src/rag/embedder';
import { DEFAULT_RETRIEVAL_SETTINGS, RagRetrievalRepository } from '../apps/public-api/src/rag/rag-retrieval.repository';
import { packFloat32 } from '../apps/public-api/src/rag/ranking';
import { headingOf, page, sentence, zipfWord } from './fixtures/rag/prose';
import { postJson, type RagServices, SERVICE_KEY, seededRandom, startRagServices } from './fixtures/rag/services';
import { report, runConcurrent, summarize } from './support';

const INDEX_DOCS = Number(process.env.BENCH_RAG_INDEX_DOCS ?? 40);
const PAGES_PER_DOC = Number(process.env.BENCH_RAG_PAGES ?? 25);
const PAGE_CHARS = 2500;
const CONCURRENCY = process.env.BENCH_RAG_INDEX_CONCURRENCY ?? '2';
const CHUNKS = Number(process.env.BENCH_RAG_CHUNKS ?? 100_000);
const QUERIES = Number(process.env.BENCH_RAG_QUERIES ?? 400);
const OWNERS = 10;
const CHUNKS_PER_DOC = 100;

/** Makes the repository's `ds.query` run on a pg pool (the repository uses nothing else). */
/** The repository uses `query` and `transaction` of its DataSource: both over a pg pool here. */
function poolAsDataSource(pool: Pool): ConstructorParameters<typeof RagRetrievalRepository>[0] {
  const query = async (sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows;
  const transaction = async <T>(work: (m: { query: typeof query }) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const out = await work({ query: async (sql, params) => (await client.query(sql, params)).rows });
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
  return { query, transaction } as unknown as ConstructorParameters<typeof RagRetrievalRepository>[0];
}

async function embed(llm: string, texts: string[]): Promise<{ vectors: number[][]; model: string }> {
  const res = await postJson(`${llm}/api/v1/embeddings`, { input: texts }, { 'x-service-key': SERVICE_KEY });
  if (res.status !== 200) throw new Error(`embeddings answered ${res.status}`);
  const body = res.body as { embeddings: number[][]; model: string; provider: string };
  return { vectors: body.embeddings.map(normalise), model: `${body.provider}:${body.model}` };
}

async function userIds(pool: Pool): Promise<number[]> {
  const rows = (await pool.query<{ id: number }>("SELECT id FROM users WHERE username IN ('alice', 'bob', 'admin') ORDER BY id")).rows.map((r) => r.id);
  const extra = OWNERS - rows.length;
  for (let i = 0; i < extra; i += 1) {
    const r = await pool.query<{ id: number }>("INSERT INTO users (username, email, password_hash, role) VALUES ($1, $2, 'x', 'user') RETURNING id", [`bench${i}`, `bench${i}@docflow.test`]);
    rows.push(r.rows[0]!.id);
  }
  return rows;
}

async function insertDocuments(
  pool: Pool,
  rows: { title: string; owner: number; visibility: 'user' | 'global'; text: string; pages: { page: number; text: string }[] | null; ragDone: boolean }[],
): Promise<number[]> {
  const r = await pool.query<{ id: number }>(
    `INSERT INTO documents (title, owner_id, visibility, global_key, storage_key, original_filename, mime_type, file_size, storage_bytes, sha256, text_status, extracted_text, text_pages,
                            rag_enabled, rag_status, rag_processing_status)
     SELECT t.title, t.owner, t.visibility, CASE WHEN t.visibility = 'global' THEN 'bench-' || md5(t.title) END, 'bench/' || md5(t.title), 'bench.txt', 'text/plain', length(t.body), length(t.body), md5(t.title) || md5(t.title), 'completed', t.body, t.pages::jsonb,
            t.done, CASE WHEN t.done THEN 'enabled' ELSE 'disabled' END, CASE WHEN t.done THEN 'completed' END
     FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::boolean[]) AS t(title, owner, visibility, body, pages, done)
     RETURNING id`,
    [
      rows.map((d) => d.title),
      rows.map((d) => d.owner),
      rows.map((d) => d.visibility),
      rows.map((d) => d.text),
      rows.map((d) => (d.pages ? JSON.stringify(d.pages) : null)),
      rows.map((d) => d.ragDone),
    ],
  );
  return r.rows.map((x) => x.id);
}

/** Indexing: documents whose text is extracted, enabled through the internal route; time until every one is completed. */
async function indexing(svc: RagServices, pool: Pool, owner: number): Promise<Record<string, string | number>> {
  const random = seededRandom(7);
  const docs = Array.from({ length: INDEX_DOCS }, (_, d) => {
    const pages = Array.from({ length: PAGES_PER_DOC }, (_, p) => ({ page: p + 1, text: page(random, PAGE_CHARS, headingOf(random, p + 1)) }));
    return { title: `Indexing bench ${d}`, owner, visibility: 'user' as const, text: pages.map((p) => p.text).join('\n\n'), pages, ragDone: false };
  });
  const ids = await insertDocuments(pool, docs);
  const started = performance.now();
  await runConcurrent(ids.length, 8, async (i) => {
    const res = await postJson(`${svc.api}/api/internal/rag/enable`, { document_id: ids[i], user_id: owner }, { 'x-service-key': SERVICE_KEY });
    if (res.status !== 202) throw new Error(`enable answered ${res.status}: ${JSON.stringify(res.body)}`);
  });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    const r = await pool.query<{ done: number; failed: number }>(
      "SELECT count(*) FILTER (WHERE rag_processing_status = 'completed')::int AS done, count(*) FILTER (WHERE rag_processing_status = 'failed')::int AS failed FROM documents WHERE id = ANY($1::int[])",
      [ids],
    );
    const { done, failed } = r.rows[0]!;
    if (failed > 0) throw new Error(`${failed} documents failed to index`);
    if (done === ids.length) break;
    if (Date.now() > deadline) throw new Error('indexing did not finish within 15 minutes');
    await new Promise((res) => setTimeout(res, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  const chunks = (await pool.query<{ n: number; embedded: number }>('SELECT count(*)::int AS n, count(embedding)::int AS embedded FROM rag_chunks WHERE document_id = ANY($1::int[])', [ids])).rows[0]!;
  const pages = INDEX_DOCS * PAGES_PER_DOC;
  return {
    scenario: `index ${INDEX_DOCS} docs x ${PAGES_PER_DOC} pages (${PAGE_CHARS} chars), RAG_INDEX_CONCURRENCY=${CONCURRENCY}`,
    n: pages,
    'pages/s': +(pages / seconds).toFixed(1),
    'chunks/s': +(chunks.n / seconds).toFixed(1),
    chunks: `${chunks.n} (${chunks.embedded} embedded)`,
    'p50 ms': '',
    'p95 ms': '',
  };
}

/** Seeds chunks (with local-engine embeddings) until rag_chunks holds CHUNKS rows; half of the documents are global. */
async function seedChunks(svc: RagServices, pool: Pool, owners: number[]): Promise<void> {
  const random = seededRandom(42);
  const have = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM rag_chunks')).rows[0]!.n;
  const docCount = Math.ceil(Math.max(0, CHUNKS - have) / CHUNKS_PER_DOC);
  // Rebuilding the GIN index once is far faster than maintaining it row by row while seeding.
  await pool.query('DROP INDEX rag_chunks_tsv_idx');
  for (let d = 0; d < docCount; d += 1) {
    const global = d % 2 === 0;
    const owner = owners[d % owners.length]!;
    const [docId] = await insertDocuments(pool, [{ title: `Seeded handbook ${d} ${zipfWord(random)}`, owner, visibility: global ? 'global' : 'user', text: '(seeded)', pages: null, ragDone: true }]);
    const contents = Array.from({ length: CHUNKS_PER_DOC }, (_, c) => {
      const code = `ZX${d}K${c}`; // a rare token per chunk, for selective questions
      const parts: string[] = [];
      let size = 0;
      while (size < 900) {
        const s = sentence(random, parts.length === 2 ? code : undefined);
        parts.push(s);
        size += s.length + 1;
      }
      return parts.join(' ');
    });
    const { vectors, model } = await embed(svc.llm, contents);
    await pool.query(
      `INSERT INTO rag_chunks (document_id, owner_id, visibility, document_title, chunk_index, page, content, embedding, embedding_f32, embedding_model)
       SELECT $1, $2, $3, 'Seeded handbook', t.i, 1 + t.i / 4, t.content, t.emb::real[], t.bin::bytea, $6
       FROM unnest($4::int[], $5::text[], $7::text[], $8::text[]) AS t(i, content, emb, bin)`,
      [docId, owner, global ? 'global' : 'user', contents.map((_, i) => i), contents, model, vectors.map((v) => `{${v.join(',')}}`), vectors.map((v) => `\\x${packFloat32(v).toString('hex')}`)],
    );
    if (d % 100 === 99) console.log(`seeded ${(d + 1) * CHUNKS_PER_DOC} chunks`);
  }
  await pool.query('CREATE INDEX rag_chunks_tsv_idx ON rag_chunks USING gin (tsv) WITH (fastupdate = off)');
  await pool.query('VACUUM ANALYZE rag_chunks');
  await pool.query('VACUUM ANALYZE documents');
}

/**
 * Questions as people ask them: two everyday words (the 100 most common) and
 * two more specific ones (any rank, rarer more likely); every fourth names a
 * chunk's record code. `common`: only the 50 most common words, the worst case.
 */
function questions(n: number, kind: 'mixed' | 'common'): { text: string; selective: boolean }[] {
  const random = seededRandom(kind === 'mixed' ? 99 : 98);
  return Array.from({ length: n }, (_, i) => {
    const words = kind === 'common' ? Array.from({ length: 4 }, () => zipfWord(random, 0, 50)) : [zipfWord(random, 0, 100), zipfWord(random, 0, 100), zipfWord(random, 100), zipfWord(random, 100)];
    const selective = kind === 'mixed' && i % 4 === 0;
    if (selective) words.push(`ZX${Math.floor(random() * (CHUNKS / CHUNKS_PER_DOC))}K${Math.floor(random() * CHUNKS_PER_DOC)}`);
    return { text: `What does the ${words.join(' ')} say?`, selective };
  });
}

async function retrieval(svc: RagServices, pool: Pool, userId: number): Promise<Record<string, string | number>[]> {
  const repo = new RagRetrievalRepository(poolAsDataSource(pool), DEFAULT_RETRIEVAL_SETTINGS);
  const sets = { mixed: questions(QUERIES, 'mixed'), common: questions(QUERIES, 'common') };
  const vectors = {
    mixed: await embed(
      svc.llm,
      sets.mixed.map((q) => q.text),
    ),
    common: await embed(
      svc.llm,
      sets.common.map((q) => q.text),
    ),
  };
  const visible = (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM rag_chunks WHERE owner_id = $1 OR visibility = 'global'", [userId])).rows[0]!.n;
  const total = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM rag_chunks')).rows[0]!.n;
  const rows: Record<string, string | number>[] = [];
  const scenarios: [string, 'mixed' | 'common', boolean][] = [
    ['hybrid (full text + vectors, RRF)', 'mixed', true],
    ['full text only', 'mixed', false],
    ['hybrid, questions of only the 50 most common words', 'common', true],
  ];
  const qs = sets.mixed;
  for (const [name, kind, withVectors] of scenarios) {
    const run = async (i: number) => {
      const q = sets[kind][i % QUERIES]!;
      const started = performance.now();
      const found = await repo.search({ userId, text: q.text, embedding: withVectors ? { vector: vectors[kind].vectors[i % QUERIES]!, model: vectors[kind].model } : null, limit: 5 });
      if (found.length === 0 && q.selective) throw new Error(`no chunk found for ${q.text}`);
      return performance.now() - started;
    };
    await runConcurrent(40, 1, async (i) => void (await run(i)));
    const lat: number[] = [];
    await runConcurrent(QUERIES, 1, async (i) => void lat.push(await run(i)));
    const s = summarize(lat);
    rows.push({
      scenario: `retrieve top 5 of ${total} chunks (${visible} visible), ${name}`,
      n: s.n,
      'pages/s': '',
      'chunks/s': '',
      chunks: total,
      'p50 ms': +s.p50.toFixed(2),
      'p95 ms': +s.p95.toFixed(2),
    });
  }
  // End to end over HTTP for context: query embedding + retrieval + the local engine's answer.
  const e2e: number[] = [];
  await runConcurrent(Math.min(QUERIES, 200), 1, async (i) => {
    const started = performance.now();
    const res = await postJson(`${svc.api}/api/internal/rag/query`, { query: qs[i]!.text, user_id: userId, top_k: 5 }, { 'x-service-key': SERVICE_KEY });
    if (res.status !== 200) throw new Error(`rag query answered ${res.status}`);
    e2e.push(performance.now() - started);
  });
  const s = summarize(e2e);
  rows.push({
    scenario: `POST /api/internal/rag/query end to end (embedding, retrieval, local-engine answer)`,
    n: s.n,
    'pages/s': '',
    'chunks/s': '',
    chunks: total,
    'p50 ms': +s.p50.toFixed(2),
    'p95 ms': +s.p95.toFixed(2),
  });
  return rows;
}

async function main(): Promise<void> {
  const svc = await startRagServices('rag', { apiPort: Number(process.env.BENCH_PORT ?? 22437), llmPort: Number(process.env.BENCH_LLM_PORT ?? 22420), env: { RAG_INDEX_CONCURRENCY: CONCURRENCY } });
  const pool = new Pool({ connectionString: svc.db.url, max: 4 });
  try {
    const owners = await userIds(pool);
    const rows: Record<string, string | number>[] = [];
    rows.push(await indexing(svc, pool, owners[0]!));
    console.table(rows);
    await seedChunks(svc, pool, owners);
    rows.push(...(await retrieval(svc, pool, owners[1]!)));
    report('rag', rows, {
      indexDocs: INDEX_DOCS,
      pagesPerDoc: PAGES_PER_DOC,
      pageChars: PAGE_CHARS,
      chunks: CHUNKS,
      queries: QUERIES,
      retrieval: DEFAULT_RETRIEVAL_SETTINGS,
      targets: { pagesPerSecond: 200, retrievalP95Ms: 50 },
    });
  } finally {
    await pool.end().catch(() => undefined);
    await svc.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
