import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OTLP_SPAN_KIND, OtlpReceiver, type ReceivedSpan } from '@docflow/testing';
import { OpenAiStub } from './support/openai-stub';
import { eventually, Stack, type ServiceName } from './support/stack';
import { chain, definition, endNode, objectSchema, startNode, taskNode, WorkflowApi } from './support/workflow-api';

jest.setTimeout(240000);

const TEXT = 'Customer Jane Smith (jane.smith@example.com) paid the March invoice and asks for a refund.';
const HOPS: ServiceName[] = ['public-api', 'router', 'workflow-processor', 'llm-service', 'data-shield'];

/** The one span of `trace` of that service and kind whose parent is `parent` (fails naming what it saw otherwise). */
function childOf(trace: ReceivedSpan[], parent: ReceivedSpan | { spanId: string }, service: string, kind: number, name?: RegExp): ReceivedSpan {
  const found = trace.filter((s) => s.parentSpanId === parent.spanId && s.service === service && s.kind === kind && (!name || name.test(s.name)));
  if (found.length !== 1) {
    const seen = trace.map((s) => `${s.service} ${s.kind} ${s.name} ${s.spanId}<-${s.parentSpanId}`).join('\n  ');
    throw new Error(`expected one ${service} span of kind ${kind} under ${parent.spanId}, found ${found.length}; the trace holds:\n  ${seen}`);
  }
  return found[0]!;
}

/** The first span on the path from `from` down to a span of `service` and `kind` (the processor's engine may nest calls). */
function descendantOf(trace: ReceivedSpan[], from: ReceivedSpan, service: string, kind: number, name?: RegExp): ReceivedSpan {
  const queue = [from];
  while (queue.length) {
    const at = queue.shift()!;
    for (const child of trace.filter((s) => s.parentSpanId === at.spanId)) {
      if (child.service === service && child.kind === kind && (!name || name.test(child.name))) return child;
      queue.push(child);
    }
  }
  throw new Error(`no ${service} span of kind ${kind} below ${from.service} ${from.name}`);
}

describe('traces across every hop (OTLP/HTTP to a loopback receiver)', () => {
  let receiver: OtlpReceiver;
  let provider: OpenAiStub;
  let stack: Stack;
  let alice: WorkflowApi;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    provider = await OpenAiStub.start({ answer: () => ({ content: 'A customer asks for a refund.', promptTokens: 30, completionTokens: 8 }) });
    stack = await Stack.start({
      portOffset: 950,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        // The SDK's own variable: export batches every 200 ms rather than 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '200',
        // Request lines are debug: every HTTP hop then writes one naming the correlation id.
        LOG_LEVEL: 'debug',
        LLM_PROVIDER_A_URL: provider.baseUrl,
        LLM_PROVIDER_A_MODEL: 'gpt-4o-mini',
      },
    });
    alice = await WorkflowApi.login(stack.api, 'alice@docflow.local', 'Alice#Pass123');
  });

  afterAll(async () => {
    await stack?.stop();
    await provider?.stop();
    await receiver?.stop();
  });

  it('one trace runs public API → router → workflow processor → LLM service → Data Shield, each span the child of the hop before', async () => {
    // A shielded summary: the processor calls the LLM service, which calls Data Shield before the provider.
    const def = definition(
      [startNode(), taskNode('summarize', 'summarization_task', { summary_type: 'brief', max_length: 40 }, 'Summarize'), endNode()],
      chain('start', 'summarize', 'end'),
      objectSchema({ text: { type: 'string' } }),
    );
    const activity = await alice.createActivity({ name: 'Traced shielded summary', workflow_definition: def, data_shield_policy: { required: true } });
    const execution = await alice.createExecution(activity, { text: TEXT });

    // The caller starts the trace: its traceparent names a span of its own as the parent of the public API's.
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const correlationId = `traces-e2e-${randomUUID()}`;
    const started = await alice.request(
      'POST',
      `/workflow-executions/${execution}/execute`,
      {},
      {
        traceparent: `00-${traceId}-${callerSpanId}-01`,
        'x-correlation-id': correlationId,
      },
    );
    expect(started.status).toBe(200);
    expect((await alice.waitFor(execution, { timeoutMs: 60000 })).status).toBe('completed');

    // Spans arrive in batches from five processes: wait until the deepest hop's is in and every
    // parent has arrived (Data Shield's audit batch to the public API ends after the call it made);
    // past the wait, the assertions below say what is missing.
    const complete = (spans: ReceivedSpan[]) => {
      const ids = new Set([callerSpanId, ...spans.map((s) => s.spanId)]);
      return spans.some((s) => s.service === 'data-shield' && s.kind === OTLP_SPAN_KIND.server) && spans.every((s) => ids.has(s.parentSpanId));
    };
    const trace = await eventually(async () => (complete(receiver.trace(traceId)) ? receiver.trace(traceId) : undefined), 30000, 'the whole trace').catch(() => receiver.trace(traceId));

    const api = childOf(trace, { spanId: callerSpanId }, 'public-api', OTLP_SPAN_KIND.server, /^POST \/api\/workflow-executions\/:id\/execute$/);
    expect(api.attributes).toMatchObject({ 'http.response.status_code': 200, 'docflow.correlation_id': correlationId });
    const toRouter = descendantOf(trace, api, 'public-api', OTLP_SPAN_KIND.client, /router/);
    const router = childOf(trace, toRouter, 'router', OTLP_SPAN_KIND.server, /^POST /);
    const published = descendantOf(trace, router, 'router', OTLP_SPAN_KIND.producer);
    const consumed = childOf(trace, published, 'workflow-processor', OTLP_SPAN_KIND.consumer);
    expect(consumed.name).toBe(published.name.replace(/^publish /, 'process '));
    expect(consumed.attributes).toMatchObject({ 'messaging.system': 'rabbitmq', 'docflow.correlation_id': correlationId, 'docflow.message.outcome': 'ack' });
    const toLlm = descendantOf(trace, consumed, 'workflow-processor', OTLP_SPAN_KIND.client, /llm-service/);
    const llm = childOf(trace, toLlm, 'llm-service', OTLP_SPAN_KIND.server, /^POST \/api\/v1\//);
    const toShield = descendantOf(trace, llm, 'llm-service', OTLP_SPAN_KIND.client, /data-shield/);
    const shield = childOf(trace, toShield, 'data-shield', OTLP_SPAN_KIND.server, /^POST /);
    expect(shield.statusCode).not.toBe(2);
    // The provider call is spanned too (its stub sends no spans: it only shows the LLM service's side).
    expect(descendantOf(trace, llm, 'llm-service', OTLP_SPAN_KIND.client, /^POST openai$/).attributes).toMatchObject({ 'peer.service': 'openai', 'url.path': '/v1/chat/completions' });

    // Every span of the trace hangs from another of the trace, up to the caller's.
    const ids = new Set([callerSpanId, ...trace.map((s) => s.spanId)]);
    expect(trace.filter((s) => !ids.has(s.parentSpanId))).toEqual([]);
    for (const service of HOPS) expect(trace.some((s) => s.service === service)).toBe(true);
  });

  it('writes the correlation id, with the trace id, in the log lines of every hop', async () => {
    const correlationId = `traces-logs-${randomUUID()}`;
    const traceId = randomBytes(16).toString('hex');
    const def = definition(
      [startNode(), taskNode('summarize', 'summarization_task', { summary_type: 'brief', max_length: 40 }, 'Summarize'), endNode()],
      chain('start', 'summarize', 'end'),
      objectSchema({ text: { type: 'string' } }),
    );
    const activity = await alice.createActivity({ name: 'Logged shielded summary', workflow_definition: def, data_shield_policy: { required: true } });
    const execution = await alice.createExecution(activity, { text: TEXT });
    const res = await alice.request('POST', `/workflow-executions/${execution}/execute`, {}, { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`, 'x-correlation-id': correlationId });
    expect(res.status).toBe(200);
    expect((await alice.waitFor(execution, { timeoutMs: 60000 })).status).toBe('completed');

    const linesOf = (service: ServiceName) =>
      readFileSync(path.join(__dirname, '..', '.tmp', 'e2e-logs', `${service}.log`), 'utf8')
        .split('\n')
        .filter((l) => l.includes(correlationId))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const byService = await eventually(
      async () => {
        const all = Object.fromEntries(HOPS.map((s) => [s, linesOf(s)]));
        return HOPS.every((s) => all[s]!.length > 0) ? all : undefined;
      },
      15000,
      `log lines with ${correlationId} from ${HOPS.join(', ')}`,
    );
    for (const service of HOPS) {
      for (const line of byService[service]!) expect(line).toMatchObject({ service, correlationId, traceId });
    }
  });
});
