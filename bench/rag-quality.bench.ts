// RAG retrieval quality: 40 synthetic handbooks uploaded and indexed through
// the real pipeline (upload, rag-enable, rag_index_queue, the worker in the
// public API, embeddings from the LLM service's local engine), then 160
// questions through POST /api/rag/query. A question is answered at rank r when
// the r-th source is a chunk of the right handbook holding the fact.
// Reports recall@5 and MRR@10, for hybrid retrieval and for full text alone
// (RAG_EMBEDDINGS=false), over direct and paraphrased questions.
import { Pool } from 'pg';
import { buildCorpus, type Question } from './fixtures/rag/handbooks';
import { login, postJson, startRagServices } from './fixtures/rag/services';
import { report, runConcurrent } from './support';

interface Source {
  document_id: number;
  chunk_text: string;
}

interface Outcome {
  question: Question;
  /** 1-based rank of the first source holding the fact in the right handbook; null when none of the 10 does. */
  rank: number | null;
  /** Whether the right handbook is among the first 5 sources. */
  documentAt5: boolean;
  /** Whether the answer text holds the fact. */
  answered: boolean;
}

async function runVariant(name: string, env: Record<string, string>, port: number): Promise<Outcome[]> {
  const svc = await startRagServices(`ragq_${name}`, { apiPort: port, llmPort: port - 17, env });
  const pool = new Pool({ connectionString: svc.db.url, max: 2 });
  try {
    const token = await login(svc.api, 'alice', 'Alice#Pass123');
    const auth = { authorization: `Bearer ${token}` };
    const { handbooks, questions } = buildCorpus();
    const ids: number[] = [];
    for (const h of handbooks) {
      const form = new FormData();
      form.append('title', h.title);
      form.append('file', new Blob([h.text], { type: 'text/plain' }), `${h.title.replace(/\W+/g, '-')}.txt`);
      const res = await fetch(`${svc.api}/api/documents/upload`, { method: 'POST', headers: auth, body: form });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      ids.push(((await res.json()) as { id: number }).id);
    }
    for (const id of ids) {
      const res = await postJson(`${svc.api}/api/documents/${id}/rag-enable`, {}, auth);
      if (res.status !== 202) throw new Error(`rag-enable answered ${res.status}`);
    }
    const deadline = Date.now() + 5 * 60_000;
    for (;;) {
      const r = await pool.query<{ done: number; failed: number }>(
        "SELECT count(*) FILTER (WHERE rag_processing_status = 'completed')::int AS done, count(*) FILTER (WHERE rag_processing_status = 'failed')::int AS failed FROM documents WHERE id = ANY($1::int[])",
        [ids],
      );
      if (r.rows[0]!.failed > 0) throw new Error('a handbook failed to index');
      if (r.rows[0]!.done === ids.length) break;
      if (Date.now() > deadline) throw new Error('indexing did not finish within 5 minutes');
      await new Promise((res) => setTimeout(res, 100));
    }
    // What autovacuum does shortly after a bulk load; retrieval reads these statistics.
    await pool.query('ANALYZE rag_chunks');
    const chunks = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM rag_chunks')).rows[0]!.n;
    console.log(`${name}: ${handbooks.length} handbooks, ${chunks} chunks`);

    const outcomes: Outcome[] = [];
    await runConcurrent(questions.length, 4, async (i) => {
      const q = questions[i]!;
      const res = await postJson(`${svc.api}/api/rag/query`, { query: q.question, top_k: 10 }, auth);
      if (res.status !== 200) throw new Error(`rag query answered ${res.status}`);
      const body = res.body as { answer: string; sources: Source[] };
      const expected = ids[q.handbook];
      const at = body.sources.findIndex((s) => s.document_id === expected && s.chunk_text.includes(q.fact));
      outcomes[i] = {
        question: q,
        rank: at >= 0 ? at + 1 : null,
        documentAt5: body.sources.slice(0, 5).some((s) => s.document_id === expected),
        answered: body.answer.includes(q.fact),
      };
    });
    return outcomes;
  } finally {
    await pool.end().catch(() => undefined);
    await svc.stop();
  }
}

function metrics(outcomes: Outcome[]): { n: number; recall5: number; mrr10: number; doc5: number; answered: number } {
  const n = outcomes.length;
  const recall5 = outcomes.filter((o) => o.rank !== null && o.rank <= 5).length / n;
  const mrr10 = outcomes.reduce((sum, o) => sum + (o.rank !== null && o.rank <= 10 ? 1 / o.rank : 0), 0) / n;
  return { n, recall5, mrr10, doc5: outcomes.filter((o) => o.documentAt5).length / n, answered: outcomes.filter((o) => o.answered).length / n };
}

async function main(): Promise<void> {
  const base = Number(process.env.BENCH_PORT ?? 22537);
  const variants: [string, Record<string, string>][] = [
    ['hybrid', {}],
    ['fulltext', { RAG_EMBEDDINGS: 'false' }],
  ];
  const rows: Record<string, string | number>[] = [];
  const misses: Record<string, string[]> = {};
  let port = base;
  for (const [name, env] of variants) {
    const outcomes = await runVariant(name, env, port);
    port += 2;
    for (const style of ['all', 'direct', 'paraphrase'] as const) {
      const subset = outcomes.filter((o) => style === 'all' || o.question.style === style);
      const m = metrics(subset);
      rows.push({
        retrieval: name,
        questions: style,
        n: m.n,
        'recall@5': +m.recall5.toFixed(3),
        'MRR@10': +m.mrr10.toFixed(3),
        'right document in top 5': +m.doc5.toFixed(3),
        'answer quotes the fact': +m.answered.toFixed(3),
      });
    }
    misses[name] = outcomes.filter((o) => o.rank === null || o.rank > 5).map((o) => `${o.question.question} (rank ${o.rank ?? '>10'})`);
  }
  report('rag-quality', rows, {
    corpus: '40 synthetic handbooks, 8 sections each; 160 questions (80 direct, 80 paraphrased)',
    engine: 'LLM service local engine (hashed bag-of-words embeddings, extractive answers)',
    misses,
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
