import type { JobMessageV1 } from '@docflow/contracts';
import { chain, definition, endNode, startNode, taskNode } from '../test-support/definitions';
import { executionKeyOf, parseWorkflowJob } from './workflow-job';

function job(payload: Record<string, unknown>, jobId = 'wf_12', jobType: JobMessageV1['job_type'] = 'task_based_workflow'): JobMessageV1 {
  return { version: 1, job_id: jobId, job_type: jobType, payload, submitted_at: new Date().toISOString() };
}

const valid = definition([startNode(), endNode()], chain('start', 'end'));

describe('parseWorkflowJob', () => {
  it('keys checkpoints by execution, shared by the first run and its resumes', () => {
    expect(executionKeyOf('wf_12', 12)).toBe('execution:12');
    expect(executionKeyOf('bench_x_resume_2', undefined)).toBe('job:bench_x');
  });

  it('takes the execution id from the payload, else from the job id', () => {
    const a = parseWorkflowJob(job({ workflow_definition: valid, execution_id: 40 }));
    const b = parseWorkflowJob(job({ workflow_definition: valid }, 'wf_41_resume_3'));
    const c = parseWorkflowJob(job({ workflow_definition: valid }, 'custom'));
    expect(a.ok && a.job).toMatchObject({ executionId: 40, executionKey: 'execution:40' });
    expect(b.ok && b.job).toMatchObject({ executionId: 41, executionKey: 'execution:41' });
    expect(c.ok && c.job.executionId).toBeUndefined();
    expect(c.ok && c.job.executionKey).toBe('job:custom');
  });

  it('lists every problem of a bad payload, definition or inputs', () => {
    expect(parseWorkflowJob(job({ inputs: {} }))).toMatchObject({ ok: false, executionId: 12, error: expect.stringContaining('Invalid workflow job payload: workflow_definition') });
    const cyclic = definition([taskNode('a', 'rest_api_task', { url: 'http://x' }), taskNode('b', 'rest_api_task')], [
      { id: 'e1', source: 'a', target: 'b' },
      { id: 'e2', source: 'b', target: 'a' },
    ]);
    const bad = parseWorkflowJob(job({ workflow_definition: cyclic }));
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^Invalid workflow definition: .*Cycles are not allowed.*Node b \(rest_api_task\): config/);
    const schema = { ...valid, input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } };
    expect(parseWorkflowJob(job({ workflow_definition: schema, inputs: {} }))).toMatchObject({ ok: false, error: expect.stringContaining('Invalid inputs: ') });
    expect(parseWorkflowJob(job({ workflow_definition: schema, inputs: { n: 1 } })).ok).toBe(true);
    expect(parseWorkflowJob(job({ documents: [] }, 'x', 'OCR'))).toMatchObject({ ok: false, error: 'workflow_queue only takes task_based_workflow jobs, not OCR' });
  });

  it('carries the deadline and the resume instruction', () => {
    const parsed = parseWorkflowJob(job({ workflow_definition: valid, deadline_at: '2030-01-01T00:00:00Z', resume: { node_id: 'ask', payload: { ok: 1 } } }));
    expect(parsed.ok && parsed.job.deadline).toEqual({ at: new Date('2030-01-01T00:00:00Z'), text: '2030-01-01T00:00:00Z' });
    expect(parsed.ok && parsed.job.resume).toEqual({ nodeId: 'ask', payload: { ok: 1 } });
  });
});
