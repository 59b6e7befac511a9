import { JobMessageV1, type ResultMessage } from '@docflow/contracts';
import { ContentServiceError, type ContentClient, type DocumentText, type ExtractCall, type ExtractResult, type LlmClient, LlmServiceError } from '@docflow/llm-client';
import { signJobUser } from '@docflow/internal-auth';
import type { MessageMeta } from '@docflow/messaging';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { createExtractionMetrics } from '../metrics';
import { EXTRACTION_JOB_TYPES, ExtractionJobRunner } from './job-handlers';

function meta(deliveryCount = 1): MessageMeta {
  return { deliveryCount, redelivered: deliveryCount > 1, headers: {}, correlationId: 'c', messageId: 'm', queue: 'extraction_queue' };
}

const JOB_USER_SECRET = 'job-user-secret-0123456789abcdef';

/** A job as the public API sends it: a positive `user_id` is signed for this job. */
function job(jobType: JobMessageV1['job_type'], payload: Record<string, unknown>, id = 'job_1'): JobMessageV1 {
  const userId = payload['user_id'];
  const signed = typeof userId === 'number' && userId > 0 ? { ...payload, user_signature: signJobUser(JOB_USER_SECRET, id, userId) } : payload;
  return Object.assign(new JobMessageV1(), { version: 1, job_id: id, job_type: jobType, payload: signed, submitted_at: new Date().toISOString() });
}

const ANSWER: ExtractResult = { content: { total: '12.50' }, model: 'local-extractive-v1', provider: 'local', cost: 0, usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } };

interface Fakes {
  runner: ExtractionJobRunner;
  published: ResultMessage[];
  extractCalls: ExtractCall[];
  textCalls: number[];
}

function setup(options: { extract?: (req: ExtractCall, signal?: AbortSignal) => Promise<ExtractResult>; documentText?: (id: number, signal?: AbortSignal) => Promise<DocumentText> } = {}): Fakes {
  const published: ResultMessage[] = [];
  const extractCalls: ExtractCall[] = [];
  const textCalls: number[] = [];
  const llm: LlmClient = {
    extract: (req, o) => {
      extractCalls.push(req);
      return options.extract ? options.extract(req, o?.signal) : Promise.resolve(ANSWER);
    },
    chat: () => Promise.reject(new Error('unused')),
    embeddings: () => Promise.reject(new Error('unused')),
    close: () => undefined,
  };
  const content: ContentClient = {
    documentText: (id, o) => {
      textCalls.push(id);
      return options.documentText
        ? options.documentText(id, o?.signal)
        : Promise.resolve({
            document_id: id,
            title: `Doc ${id}`,
            mime_type: 'text/plain',
            text: `Text of ${id}. Total: 12.50`,
            pages: [{ page: 1, text: `Text of ${id}` }],
            page_count: 1,
            text_status: 'completed',
          });
    },
    visiblePrompts: () => Promise.resolve([]),
    prompt: () => Promise.reject(new Error('unused')),
    close: () => undefined,
  };
  const runner = new ExtractionJobRunner({
    services: { llm, content, documentConcurrency: 2, maxTextChars: 1000 },
    publish: async (r) => void published.push(r),
    metrics: createExtractionMetrics(new Metrics('extraction-processor-test')),
    logger: silentLogger,
    maxDocuments: 3,
    jobUserSecret: JOB_USER_SECRET,
  });
  return { runner, published, extractCalls, textCalls };
}

describe('ExtractionJobRunner', () => {
  it('has exactly one handler per extraction job type and refuses others without retry', async () => {
    const { runner } = setup();
    expect([...runner.registry.kinds()].sort()).toEqual([...EXTRACTION_JOB_TYPES].sort());
    expect([...EXTRACTION_JOB_TYPES].sort()).toEqual(['OCR', 'classification', 'document_extraction']);
    await expect(runner.handle(job('task_based_workflow', {}), meta())).rejects.toMatchObject({ name: 'NonRetryableMessageError' });
  });

  it('answers an invalid payload with failed validation_error naming every problem', async () => {
    const { runner, published } = setup();
    await runner.handle(job('OCR', { documents: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }], user_id: 0 }), meta());
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ job_id: 'job_1', status: 'failed', error_type: 'validation_error' });
    expect(published[0]?.error).toMatch(/^Invalid OCR job: .*user_id/);
    await runner.handle(job('OCR', { documents: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }], user_id: 5 }, 'job_2'), meta());
    expect(published[1]?.error).toBe('Invalid OCR job: documents: at most 3 documents per job (got 4)');
  });

  it('refuses a job whose user_id the platform did not sign for that job, reading nothing', async () => {
    const { runner, published, textCalls } = setup();
    const forged = { documents: [{ id: 1 }], user_id: 5, user_signature: signJobUser(JOB_USER_SECRET, 'another_job', 5) };
    await runner.handle(Object.assign(new JobMessageV1(), { version: 1, job_id: 'job_9', job_type: 'OCR', payload: forged, submitted_at: new Date().toISOString() }), meta());
    await runner.handle(
      Object.assign(new JobMessageV1(), { version: 1, job_id: 'job_10', job_type: 'OCR', payload: { ...forged, user_signature: signJobUser('another-secret-0123456789abcdef', 'job_10', 5) } }),
      meta(),
    );
    expect(published.map((p) => [p.job_id, p.status, p.error])).toEqual([
      ['job_9', 'failed', 'Invalid OCR job: user_id 5 is not signed by the platform'],
      ['job_10', 'failed', 'Invalid OCR job: user_id 5 is not signed by the platform'],
    ]);
    expect(textCalls).toEqual([]);
  });

  it('reports processing, then completes an OCR job in document order, using inline text when given', async () => {
    const { runner, published, textCalls } = setup();
    await runner.handle(job('OCR', { documents: [{ id: 4, text: 'Given text', title: 'Given' }, { id: 9 }], user_id: 5 }), meta());
    expect(published.map((p) => p.status)).toEqual(['processing', 'completed']);
    expect((published[1]?.sequence ?? 0) > (published[0]?.sequence ?? 0)).toBe(true);
    expect(published[1]?.outputs).toEqual({
      documents: [
        { document_id: 4, document_name: 'Given', text: 'Given text', pages: null, page_count: null },
        { document_id: 9, document_name: 'Doc 9', text: 'Text of 9. Total: 12.50', pages: [{ page: 1, text: 'Text of 9' }], page_count: 1 },
      ],
    });
    expect(textCalls).toEqual([9]);
  });

  it('runs document_extraction with an inline prompt and sums cost and tokens', async () => {
    const { runner, published, extractCalls } = setup({ extract: async () => ({ ...ANSWER, cost: 0.0015 }) });
    await runner.handle(job('document_extraction', { documents: [{ id: 1 }, { id: 2 }], user_id: 5, config: { prompt_text: 'Extract the total as JSON', model_type: 'provider_c' } }), meta());
    const done = published.find((p) => p.status === 'completed');
    expect(done?.outputs).toMatchObject({ tokens_used: 50, cost: 0.003 });
    expect((done?.outputs?.['documents'] as unknown[])[1]).toEqual({
      document_id: 2,
      document_name: 'Doc 2',
      extraction_result: { total: '12.50' },
      tokens_used: 25,
      cost: 0.0015,
      provider: 'local',
      model: 'local-extractive-v1',
    });
    expect(extractCalls[0]).toEqual({ prompt_template: 'Extract the total as JSON', content: 'Text of 1. Total: 12.50', task_hint: 'extract', output_format: 'json', model_type: 'provider_c' });
  });

  it('fails a document_extraction job without a prompt as validation_error', async () => {
    const { runner, published } = setup();
    await runner.handle(job('document_extraction', { documents: [{ id: 1 }], user_id: 5 }), meta());
    expect(published.at(-1)).toMatchObject({ status: 'failed', error_type: 'validation_error', error: 'document_extraction needs config.prompt_id or config.prompt_text' });
  });

  it('fails the whole job with llm_error when the LLM service answers 503, naming the document', async () => {
    const { runner, published } = setup({
      extract: async () => {
        throw new LlmServiceError('llm-service', 'llm_service_unavailable', 'llm-service answered 503 llm_service_unavailable: provider down', { status: 503, retryable: true, retryAfterSeconds: 5 });
      },
    });
    await runner.handle(job('document_extraction', { documents: [{ id: 3 }], user_id: 5, config: { prompt_text: 'Extract' } }), meta());
    expect(published.at(-1)).toMatchObject({ status: 'failed', error_type: 'llm_error', error: 'Document 3: llm-service answered 503 llm_service_unavailable: provider down' });
  });

  it('requeues a job while the public API is unreachable, and fails it on the last delivery', async () => {
    const unreachable = () => Promise.reject(new ContentServiceError('public-api', 'unreachable', 'public-api is unreachable at http://x (ECONNREFUSED)', { retryable: true }));
    const { runner, published } = setup({ documentText: unreachable });
    await expect(runner.handle(job('OCR', { documents: [{ id: 1 }], user_id: 5 }), meta(1))).rejects.toThrow(/unreachable/);
    expect(published.map((p) => p.status)).toEqual(['processing']);
    await runner.handle(job('OCR', { documents: [{ id: 1 }], user_id: 5 }), meta(3));
    expect(published.at(-1)).toMatchObject({ status: 'failed', error_type: 'network_error', error: 'Document 1: public-api is unreachable at http://x (ECONNREFUSED)' });
  });

  it('stops the other documents of a job once one fails', async () => {
    let started = 0;
    const { runner, published } = setup({
      documentText: (id, signal) => {
        started += 1;
        if (id === 2) return Promise.reject(new Error('disk on fire'));
        return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new ContentServiceError('public-api', 'aborted', 'cancelled'))));
      },
    });
    await runner.handle(job('OCR', { documents: [{ id: 1 }, { id: 2 }, { id: 3 }], user_id: 5 }), meta());
    expect(published.at(-1)).toMatchObject({ status: 'failed', error_type: 'internal_error', error: 'Document 2: disk on fire' });
    expect(started).toBe(2);
  });

  it('publishes no result for a job stopped by shutdown, so it is requeued', async () => {
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const { runner, published } = setup({
      documentText: (_id, signal) =>
        new Promise((_resolve, reject) => {
          arrived();
          signal?.addEventListener('abort', () => reject(new ContentServiceError('public-api', 'aborted', 'cancelled')));
        }),
    });
    const handled = runner.handle(job('OCR', { documents: [{ id: 1 }], user_id: 5 }), meta());
    await reached;
    expect(runner.inFlight).toBe(1);
    runner.abortAll();
    await expect(handled).rejects.toThrow();
    await runner.idle(1000);
    expect(runner.inFlight).toBe(0);
    expect(published.map((p) => p.status)).toEqual(['processing']);
  });
});
