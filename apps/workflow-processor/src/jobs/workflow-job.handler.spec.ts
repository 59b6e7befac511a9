import type { JobMessageV1 } from '@docflow/contracts';
import { silentLogger } from '@docflow/service-kit';
import { chain, definition, edge, endNode, startNode, taskNode } from '../test-support/definitions';
import { testExecutors, testMeta, testMetrics } from '../test-support/engine-harness';
import { mayDoWork } from './workflow-job';
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
    engine: { executors: testExecutors({ rest_api_task: async () => ({ output: { ok: true } }) }), checkpoints: new MemoryCheckpoints(), metrics: testMetrics(), control },
    metrics: testMetrics(),
    logger: silentLogger,
    progressIntervalMs: 1000,
    jobUserSecret: SECRET,
  });
  return { handler, published };
}

const valid = definition([startNode(), taskNode('call', 'rest_api_task', { url: 'http://example.test' }), endNode()], chain('start', 'call', 'end'));
const pure = definition(
  [startNode(), taskNode('d', 'decision', { operator: '>', left_operand: '$.amount', right_operand: 100 }), endNode('yes'), endNode('no')],
  [edge('start', 'd'), edge('d', 'yes', 'true'), edge('d', 'no', 'false')],
);

describe('WorkflowJobHandler: the cancel read sent at delivery (issue #16)', () => {
  it('sends the read at delivery, the read the run awaits before it runs anything, and publishes the result', async () => {
    const reads: number[] = [];
    const { handler, published } = handlerWith({ isCancelled: async (id) => (reads.push(id), false) });
    await handler.handle(job({ workflow_definition: valid, execution_id: 12 }), testMeta);
    // The delivery's read, then the run's own around its working node (run-controls.spec.ts counts those).
    expect(reads).toEqual([12, 12, 12]);
    expect(published.at(-1)).toEqual(expect.objectContaining({ job_id: 'wf_12', execution_id: 12, status: 'completed' }));
  });

  it('sends the read before the job is validated: a job refused by validation was read for too, and its failed result still goes out', async () => {
    const reads: number[] = [];
    // The read fails: never awaited for a refused job, so the failure goes nowhere (no unhandled rejection) and changes nothing.
    const { handler, published } = handlerWith({ isCancelled: async (id) => (reads.push(id), Promise.reject(new Error('database away'))) });
    await handler.handle(job({ workflow_definition: { nodes: 'none' }, execution_id: 13 }, 'wf_13'), testMeta);
    expect(reads).toEqual([13]);
    expect(published).toEqual([expect.objectContaining({ job_id: 'wf_13', status: 'failed', error_type: 'validation_error' })]);
  });

  it('reads nothing for a graph of control and decision nodes, and publishes its result whatever the cancel state', async () => {
    const reads: number[] = [];
    const { handler, published } = handlerWith({ isCancelled: async (id) => (reads.push(id), true) });
    await handler.handle(job({ workflow_definition: pure, inputs: { amount: 150 }, execution_id: 16 }, 'wf_16'), testMeta);
    expect(reads).toEqual([]);
    expect(published).toEqual([expect.objectContaining({ job_id: 'wf_16', execution_id: 16, status: 'completed' })]);
  });

  it('guesses from the definition as delivered whether a node may do work: anything it cannot tell counts as work', () => {
    const msg = (workflow_definition: unknown) => job({ workflow_definition, execution_id: 1 });
    expect(mayDoWork(msg(pure))).toBe(false);
    expect(mayDoWork(msg(valid))).toBe(true);
    expect(mayDoWork(msg({ nodes: 'none' }))).toBe(true);
    expect(mayDoWork(msg({ nodes: [{ id: 'x', type: 'task' }] }))).toBe(true);
    expect(mayDoWork(msg({ nodes: [null] }))).toBe(true);
    expect(mayDoWork(msg(undefined))).toBe(true);
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
