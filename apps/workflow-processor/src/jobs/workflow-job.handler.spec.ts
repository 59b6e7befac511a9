import type { JobMessageV1 } from '@docflow/contracts';
import { silentLogger } from '@docflow/service-kit';
import { chain, definition, endNode, startNode } from '../test-support/definitions';
import { testExecutors, testMeta, testMetrics } from '../test-support/engine-harness';
import { MemoryCheckpoints } from '../test-support/memory-checkpoints';
import type { ExecutionControl } from '../engine/workflow-run';
import { WorkflowJobHandler } from './workflow-job.handler';

const SECRET = 'job-user-secret-0123456789abcdef';

function job(payload: Record<string, unknown>, jobId = 'wf_12'): JobMessageV1 {
  return { version: 1, job_id: jobId, job_type: 'task_based_workflow', payload, submitted_at: new Date().toISOString() };
}

/** A handler with a broker that records what it publishes and a control that records the reads it is asked for. */
function handlerWith(control: ExecutionControl): { handler: WorkflowJobHandler; published: Record<string, unknown>[] } {
  const published: Record<string, unknown>[] = [];
  const handler = new WorkflowJobHandler({
    broker: { publish: async (_queue: unknown, _type: unknown, message: unknown) => void published.push(message as Record<string, unknown>) } as never,
    engine: { executors: testExecutors({}), checkpoints: new MemoryCheckpoints(), metrics: testMetrics(), control },
    metrics: testMetrics(),
    logger: silentLogger,
    progressIntervalMs: 1000,
    jobUserSecret: SECRET,
  });
  return { handler, published };
}

const valid = definition([startNode(), endNode()], chain('start', 'end'));

describe('WorkflowJobHandler: the cancel read sent at delivery (issue #16)', () => {
  it('reads once per delivery, the read the run awaits before it runs anything, and publishes the result', async () => {
    const reads: number[] = [];
    const { handler, published } = handlerWith({ isCancelled: async (id) => (reads.push(id), false) });
    await handler.handle(job({ workflow_definition: valid, execution_id: 12 }), testMeta);
    expect(reads).toEqual([12]);
    expect(published).toEqual([expect.objectContaining({ job_id: 'wf_12', execution_id: 12, status: 'completed' })]);
  });

  it('sends the read before the job is validated: a job refused by validation was read for too, and its failed result still goes out', async () => {
    const reads: number[] = [];
    // The read fails: never awaited for a refused job, so the failure goes nowhere (no unhandled rejection) and changes nothing.
    const { handler, published } = handlerWith({ isCancelled: async (id) => (reads.push(id), Promise.reject(new Error('database away'))) });
    await handler.handle(job({ workflow_definition: { nodes: 'none' }, execution_id: 13 }, 'wf_13'), testMeta);
    expect(reads).toEqual([13]);
    expect(published).toEqual([expect.objectContaining({ job_id: 'wf_13', status: 'failed', error_type: 'validation_error' })]);
  });

  it('publishes nothing for an execution cancelled before the delivery, and fails the delivery when the read fails', async () => {
    const cancelled = handlerWith({ isCancelled: async () => true });
    await cancelled.handler.handle(job({ workflow_definition: valid, execution_id: 14 }, 'wf_14'), testMeta);
    expect(cancelled.published).toEqual([]);

    const failing = handlerWith({ isCancelled: async () => Promise.reject(new Error('database away')) });
    await expect(failing.handler.handle(job({ workflow_definition: valid, execution_id: 15 }, 'wf_15'), testMeta)).rejects.toThrow('database away');
    expect(failing.published).toEqual([]);
  });
});
