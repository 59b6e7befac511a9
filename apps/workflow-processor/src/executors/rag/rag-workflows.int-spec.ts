import { JobMessageV1, QUEUES } from '@docflow/contracts';
import { Broker, type ConsumerHandle } from '@docflow/messaging';
import { createOutboundClient } from '@docflow/outbound-http';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { NodeRunsRepository } from '../../checkpoints/node-runs.repository';
import { WorkflowJobHandler } from '../../jobs/workflow-job.handler';
import { createWorkflowMetrics } from '../../metrics';
import { chain, definition, endNode, startNode, taskNode } from '../../test-support/definitions';
import { HttpTarget, type TargetHit } from '@docflow/testing';
import { ProcessorHarness } from '../../test-support/processor-harness';
import { declareWorkflowQueues } from '../../topology';
import { buildExecutors } from '../build-executors';

jest.setTimeout(30000);

const SERVICE_KEY = 'wfp-rag-int-service-key-0123456789';
const USER = 7;

interface Sent {
  key: string | undefined;
  body: Record<string, unknown>;
}

/** A stand-in for the public API's internal RAG endpoints. */
function ragRoutes(api: HttpTarget, sent: Sent[]): void {
  const record = (hit: TargetHit) => {
    const body = JSON.parse(hit.body) as Record<string, unknown>;
    sent.push({ key: hit.headers['x-service-key'] as string | undefined, body });
    return body;
  };
  api.on('POST /api/internal/rag/enable', (hit) => {
    const body = record(hit);
    if (body.document_id === 404) return { status: 404, body: { error: { status: 404, name: 'NotFoundError', message: 'Document not found', details: {} } } };
    return { status: 202, body: { document_id: body.document_id, rag_status: 'queued', rag_job_id: '5f0c7e3a-1b2c-4d5e-8f90-123456789abc', queued: true } };
  });
  api.on('POST /api/internal/rag/query', (hit) => {
    const body = record(hit);
    return {
      body: {
        answer: 'The door code is 4711 [1].',
        query: body.query,
        context_used: 2,
        session_id: body.session_id,
        sources: [
          { document_id: 12, document_name: 'Lisbon handbook', chunk_text: `Security\n\nThe door code is 4711. ${'More text. '.repeat(60)}`, score: 1, page: 2, signed_url: 'http://x/signed' },
          { document_id: 30, document_name: 'Holidays', chunk_text: 'Closed on June 13.', score: 0.4, page: null },
        ],
      },
    };
  });
}

/**
 * Both RAG task types in workflows through workflow_queue and results_queue:
 * a processor built like processor.ts builds one, with the RAG executors
 * pointed at a loopback stand-in of the public API.
 */
describe('RAG task types (RabbitMQ + PostgreSQL)', () => {
  let h: ProcessorHarness;
  let api: HttpTarget;
  let broker: Broker;
  let consumer: ConsumerHandle;
  let handler: WorkflowJobHandler;
  const sent: Sent[] = [];
  let seq = 500;
  const nextId = () => (seq += 1);

  beforeAll(async () => {
    api = await HttpTarget.start('127.0.0.1');
    ragRoutes(api, sent);
    h = await ProcessorHarness.start('wfp_rag');
    broker = Broker.connect({ url: h.vhost.url, logger: silentLogger, name: 'wfp-rag-test', reconnect: { initialMs: 50, maxMs: 500 } });
    const metrics = createWorkflowMetrics(new Metrics('workflow-processor'));
    const executors = buildExecutors({
      outbound: createOutboundClient({ allowedHosts: [], maxResponseBytes: 1024 * 1024, defaultTimeoutMs: 5000 }),
      mailer: { send: () => Promise.reject(new Error('no mail in this test')) },
      restDefaultTimeoutSeconds: 30,
      rag: { baseUrl: api.url(''), serviceKey: SERVICE_KEY, timeoutMs: 5000 },
    });
    handler = new WorkflowJobHandler({
      broker,
      engine: { executors, checkpoints: new NodeRunsRepository(h.ds), metrics },
      metrics,
      logger: silentLogger,
      progressIntervalMs: 20,
      jobUserSecret: h.config().INTERNAL_SERVICE_JWT_SECRET,
    });
    await declareWorkflowQueues(broker);
    consumer = broker.consume(QUEUES.workflow, JobMessageV1, handler.handle, { prefetch: 4 });
    await broker.ready(10000);
  });

  afterAll(async () => {
    await consumer?.cancel(2000);
    handler?.abortAll();
    await broker?.close(3000);
    await h?.stop();
    await api?.stop();
  });

  it('enables a document and asks a question, for the run user when the body names none', async () => {
    const id = nextId();
    const def = definition(
      [
        startNode(),
        taskNode('index', 'rag_enable_task', { body: { document_id: '{{document_id}}', force_reprocess: true } }),
        taskNode('ask', 'rag_query_task', { body: { query: 'What is the door code of {{office}}?', top_k: 3 } }),
        endNode(),
      ],
      chain('start', 'index', 'ask', 'end'),
    );
    const before = sent.length;
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: { document_id: 12, office: 'Lisbon' }, execution_id: id, user_id: USER });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');

    const calls = sent.slice(before);
    expect(calls.map((c) => c.key)).toEqual([SERVICE_KEY, SERVICE_KEY]);
    expect(calls[0]?.body).toEqual({ document_id: 12, user_id: USER, force_reprocess: true });
    expect(calls[1]?.body).toMatchObject({ query: 'What is the door code of Lisbon?', user_id: USER, top_k: 3 });
    const sessionId = calls[1]?.body.session_id;
    expect(sessionId).toMatch(/^rag_[0-9a-f-]{36}$/);

    expect(res.outputs?.['index']).toEqual({ rag_status: 'queued', rag_job_id: '5f0c7e3a-1b2c-4d5e-8f90-123456789abc', document_id: 12 });
    const answer = res.outputs?.['ask'] as {
      answer: string;
      session_id: string;
      context_used: number;
      sources: { document_id: number; document_name: string; snippet: string; score: number; page: number | null }[];
    };
    expect(answer).toMatchObject({ answer: 'The door code is 4711 [1].', session_id: sessionId, context_used: 2 });
    expect(answer.sources).toHaveLength(2);
    expect(answer.sources[0]).toMatchObject({ document_id: 12, document_name: 'Lisbon handbook', score: 1, page: 2 });
    expect(answer.sources[0]?.snippet.startsWith('Security The door code is 4711.')).toBe(true);
    expect(answer.sources[0]?.snippet.length).toBeLessThanOrEqual(301);
    expect(answer.sources[0]?.snippet.endsWith('…')).toBe(true);
    expect(answer.sources[1]).toEqual({ document_id: 30, document_name: 'Holidays', snippet: 'Closed on June 13.', score: 0.4, page: null });
    expect(res.task_states?.['ask']).toMatchObject({ status: 'completed', task_type: 'rag_query_task' });
  });

  it('keeps a session id the node gives', async () => {
    const id = nextId();
    const def = definition([startNode(), taskNode('ask', 'rag_query_task', { body: { query: 'holidays', user_id: USER, session_id: 'chat-9' } })], chain('start', 'ask'));
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {}, execution_id: id, user_id: USER });
    const res = await h.results.next(`wf_${id}`);
    expect(res.status).toBe('completed');
    expect(res.outputs?.['ask']).toMatchObject({ session_id: 'chat-9' });
    expect(sent.at(-1)?.body).toMatchObject({ top_k: 5, session_id: 'chat-9' });
  });

  it('fails the node with http_error and the upstream status and body', async () => {
    const id = nextId();
    const def = definition([startNode(), taskNode('index', 'rag_enable_task', { body: { document_id: 404 } })], chain('start', 'index'));
    await h.submit(`wf_${id}`, { workflow_definition: def, inputs: {}, execution_id: id, user_id: USER });
    const res = await h.results.next(`wf_${id}`);
    expect(res).toMatchObject({ status: 'failed', failed_node: 'index', error_type: 'http_error' });
    expect(res.error).toContain('404');
    expect(res.error).toContain('Document not found');
  });

  it('refuses with configuration_error a user other than the run user, a missing document and a missing query', async () => {
    const before = sent.length;
    const cases: [string, Record<string, unknown>, Record<string, unknown>, RegExp][] = [
      ['rag_query_task', { body: { query: 'secrets', user_id: USER + 1 } }, {}, /user_id 8 is not the user this workflow runs for/],
      ['rag_enable_task', { body: { document_id: '{{missing}}' } }, {}, /document_id is required/],
      ['rag_enable_task', { body: { document_id: '{{doc}}' } }, { doc: 'twelve' }, /document_id must be a positive integer \(got "twelve"\)/],
      ['rag_query_task', { body: { query: '{{question}}' } }, {}, /query is required/],
      ['rag_query_task', { body: { query: 'x', top_k: '{{k}}' } }, { k: 50 }, /top_k must be at most 20/],
    ];
    for (const [taskType, config, inputs, message] of cases) {
      const id = nextId();
      await h.submit(`wf_${id}`, { workflow_definition: definition([startNode(), taskNode('n', taskType, config)], chain('start', 'n')), inputs, execution_id: id, user_id: USER });
      const res = await h.results.next(`wf_${id}`);
      expect(res).toMatchObject({ status: 'failed', failed_node: 'n', error_type: 'configuration_error' });
      expect(res.error).toMatch(message);
    }
    expect(sent.length).toBe(before);
  });

  it('acts only for the user the platform signed into the job, whatever the definition, inputs or body say', async () => {
    const before = sent.length;
    const other = USER + 1;
    const ask = (config: Record<string, unknown>, nodeId = 'n') => definition([startNode(), taskNode(nodeId, 'rag_query_task', config)], chain('start', nodeId));
    const attempts: [string, Record<string, unknown>, RegExp][] = [
      // A run with no user: an input named user_id does not become one, nor does a body naming someone.
      ['no user, spoofed input', { workflow_definition: ask({ body: { query: 'secrets', user_id: '{{user_id}}' } }), inputs: { user_id: other } }, /acts for no user/],
      ['no user, body names one', { workflow_definition: ask({ body: { query: 'secrets', user_id: other } }), inputs: {} }, /acts for no user/],
      // A node whose id is user_id is refused before anything runs.
      [
        'node named user_id',
        { workflow_definition: definition([startNode(), taskNode('user_id', 'rag_query_task', { body: { query: 'x' } })], chain('start', 'user_id')), inputs: {}, user_id: USER },
        /the id "user_id" is reserved/,
      ],
      // A job naming a user without the platform's signature for it acts for nobody.
      ['unsigned user', { workflow_definition: ask({ body: { query: 'secrets' } }), inputs: {}, user_id: other, user_signature: 'forged' }, /user_id 8 is not signed by the platform/],
    ];
    for (const [what, payload, message] of attempts) {
      const id = nextId();
      await h.submit(`wf_${id}`, { ...payload, execution_id: id });
      const res = await h.results.next(`wf_${id}`);
      expect([what, res.status, res.error]).toEqual([what, 'failed', expect.stringMatching(message)]);
    }
    expect(sent.length).toBe(before);
  });
});
