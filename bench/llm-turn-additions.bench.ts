// What issue 19's parts add to one turn, in process on loopback servers:
//   1. files: POST /api/v1/extract with no file, then with a 2-page PDF, a DOCX and a text file
//      (read to text) and a PNG (sent natively), against a loopback OpenAI-compatible provider;
//      p50/p95 of each, interleaved, and the difference to no file.
//   3. Composer blocks: the server's block work on an answer (removing model-written blocks,
//      matching 200 listed records for navigation, writing previews and creation_result): p50 in µs.
//   4. Hand-off: nothing to measure on a turn that is not escalated (the status is a column of the
//      session row the turn already reads); an escalated turn skips the model call altogether.
//   2. MCP tools: the toolbox's work at the start of a turn against the loopback MCP server (SDK,
//      Streamable HTTP): listing with a cold cache (connect + initialize + tools/list), with a warm
//      cache (nothing until a call), and one tools/call (connect + call) after a warm start.
import request from 'supertest';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { createGuardedFetch } from '@docflow/outbound-http';
import { buildDocx, buildPdf, buildPng, LoopbackFileServer, LoopbackMcpServer } from '@docflow/testing';
import type { AgentEntity } from '../apps/public-api/src/agents/agent.entity';
import { McpToolbox } from '../apps/public-api/src/agents/mcp/mcp-toolbox';
import { createApp } from '../apps/llm-service/src/app';
import { HttpDataShield } from '../apps/llm-service/src/data-shield/data-shield.client';
import { FileResolver } from '../apps/llm-service/src/files/file-inputs';
import { Pricing } from '../apps/llm-service/src/pricing/pricing';
import { buildProviderRegistry } from '../apps/llm-service/src/providers/registry';
import { openAiCompletion, recordingClock, startStubServer } from '../apps/llm-service/src/testing/stub-server';
import { composerBlocksOf, navigationTargets, withoutModelBlocks } from '../apps/public-api/src/agents/composer-tools';
import type { ListedRecord } from '../apps/public-api/src/agents/agent-tools';
import { report, summarize } from './support';

const N = Number(process.env.BENCH_LLM_TURN_N ?? 60);
const KEY = 'bench-service-key-0123456789';

async function files(): Promise<void> {
  const provider = await startStubServer(() => ({ status: 200, body: openAiCompletion('ok') }));
  const server = await LoopbackFileServer.start();
  const app = createApp({
    logger: silentLogger,
    metrics: new Metrics('bench'),
    auth: { serviceKey: KEY, jwtSecret: 'bench-jwt-secret-0123456789' },
    providers: buildProviderRegistry([{ modelType: 'provider_a', kind: 'openai', url: `${provider.url}/v1`, apiKey: 'k', model: 'm' }], {
      timeoutMs: 5000,
      retry: { maxRetries: 0, baseMs: 10, maxWaitMs: 100 },
      clock: recordingClock(),
    }),
    dataShield: new HttpDataShield({ baseUrl: 'http://127.0.0.1:9', serviceKey: KEY, timeoutMs: 500 }),
    pricing: new Pricing({}),
    files: new FileResolver({ publicBaseUrl: 'http://127.0.0.1:1', allowedHosts: [server.hostPort], maxBytes: 10 * 1024 * 1024, maxChars: 200_000 }),
  });
  const lines = Array.from({ length: 40 }, (_, i) => `Line ${i}: the invoice lists item ${i} at ${i * 3} EUR.`);
  const cases: Record<string, { url: string }[]> = {
    none: [],
    pdf_2_pages: [{ url: server.serve('/a.pdf', 'application/pdf', buildPdf([lines, lines])) }],
    docx: [{ url: server.serve('/a.docx', 'application/octet-stream', buildDocx(lines)) }],
    text_4kb: [{ url: server.serve('/a.txt', 'text/plain', Buffer.from(lines.join('\n'))) }],
    png_native: [{ url: server.serve('/a.png', 'image/png', buildPng(64, 64)) }],
  };
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < N + 5; i++) {
    for (const [name, file_urls] of Object.entries(cases)) {
      const t0 = performance.now();
      const res = await request(app)
        .post('/api/v1/extract')
        .set('X-Service-Key', KEY)
        .send({ messages: [{ role: 'user', content: 'Total?' }], output_format: 'text', file_urls });
      if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.text}`);
      if (i >= 5) samples[name]!.push(performance.now() - t0);
    }
  }
  const base = summarize(samples['none']!).p50;
  report(
    'llm-turn-files-ms',
    Object.entries(samples).map(([name, s]) => {
      const sum = summarize(s);
      return { case: name, p50: sum.p50.toFixed(2), p95: sum.p95.toFixed(2), added_p50: (sum.p50 - base).toFixed(2) };
    }),
    { n: N },
  );
  await Promise.all([provider.close(), server.stop()]);
}

function blocks(): void {
  const listed: ListedRecord[] = Array.from({ length: 200 }, (_, i) => ({ kind: (['workflow', 'agent', 'squad', 'prompt'] as const)[i % 4]!, id: i + 1, name: `Record number ${i + 1}` }));
  const answer = `You have Record number 7 and Record number 42; see also workflow #13.\n\n:::composer_block navigation\n{"forged":true}\n:::\n${'More text. '.repeat(100)}`;
  const previews = [{ type: 'workflow' as const, confirmation_id: 'cfm_x', expires_at: '2030-01-01T00:00:00Z', data: { name: 'Flow', workflow_definition: { nodes: [], edges: [] } } }];
  const times: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    const clean = withoutModelBlocks(answer);
    composerBlocksOf(previews, [{ type: 'prompt', id: 3, name: 'P' }], navigationTargets(clean, listed, []));
    times.push((performance.now() - t0) * 1000);
  }
  const s = summarize(times.slice(200));
  report('llm-turn-composer-blocks-us', [{ p50: s.p50.toFixed(1), p95: s.p95.toFixed(1) }]);
}

async function mcp(): Promise<void> {
  const server = await LoopbackMcpServer.start();
  const options = {
    fetch: createGuardedFetch({ allowedHosts: [server.hostPort] }),
    connectTimeoutMs: 5000,
    callTimeoutMs: 5000,
    resultMaxChars: 8000,
    credentialFields: async () => undefined,
  };
  const agent = { id: 1, ownerId: 1, mcpServers: [{ name: 'demo', url: server.url, transport: 'streamable_http' }] } as unknown as AgentEntity;
  const cold: number[] = [];
  const warm: number[] = [];
  const callMs: number[] = [];
  const warmBox = new McpToolbox({ ...options, ttlMs: 3_600_000 });
  await (await warmBox.open(agent, false)).close();
  for (let i = 0; i < N + 5; i++) {
    let t0 = performance.now();
    const turn = await new McpToolbox({ ...options, ttlMs: 0 }).open(agent, false);
    await turn.close();
    if (i >= 5) cold.push(performance.now() - t0);
    t0 = performance.now();
    const w = await warmBox.open(agent, false);
    if (i >= 5) warm.push(performance.now() - t0);
    t0 = performance.now();
    await w.tools.get('demo.add')!.run({ userId: 1 }, { a: 1, b: 2 });
    if (i >= 5) callMs.push(performance.now() - t0);
    await w.close();
  }
  report(
    'llm-turn-mcp-ms',
    [
      ['list, cold cache', cold],
      ['list, warm cache', warm],
      ['first call after a warm start', callMs],
    ].map(([name, s]) => ({ case: name as string, p50: summarize(s as number[]).p50.toFixed(2), p95: summarize(s as number[]).p95.toFixed(2) })),
    { n: N },
  );
  await server.stop();
}

async function main(): Promise<void> {
  blocks();
  await mcp();
  await files();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
