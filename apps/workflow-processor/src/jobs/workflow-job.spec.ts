import type { JobMessageV1 } from '@docflow/contracts';
import { chain, definition, endNode, startNode, taskNode } from '../test-support/definitions';
import { signJobUser } from '@docflow/internal-auth';
import { DEFAULT_WORKFLOW_LIMITS, validateDefinition } from '@docflow/workflow';
import { definitionProblems, executionKeyOf, parseWorkflowJob } from './workflow-job';

const SECRET = 'job-user-secret-0123456789abcdef';
const parse = (msg: JobMessageV1) => parseWorkflowJob(msg, SECRET);

function job(payload: Record<string, unknown>, jobId = 'wf_12', jobType: JobMessageV1['job_type'] = 'task_based_workflow'): JobMessageV1 {
  return { version: 1, job_id: jobId, job_type: jobType, payload, submitted_at: new Date().toISOString() };
}

const valid = definition([startNode(), endNode()], chain('start', 'end'));

describe('parseWorkflowJob', () => {
  it("validates the definition against the processor's limits (issue #13)", () => {
    const three = definition([startNode(), taskNode('a', 'rest_api_task', { url: 'https://x.example/' }), endNode()], chain('start', 'a', 'end'));
    const limited = parseWorkflowJob(job({ workflow_definition: three }), SECRET, { ...DEFAULT_WORKFLOW_LIMITS, maxNodes: 2 });
    expect(limited).toMatchObject({ ok: false, error: 'Invalid workflow definition: Workflow has 3 nodes; at most 2 are allowed' });
    expect(parseWorkflowJob(job({ workflow_definition: three }), SECRET, { ...DEFAULT_WORKFLOW_LIMITS, maxNodes: 3 }).ok).toBe(true);
  });

  it("remembers a definition's check by its JSON and limits, answering what validateDefinition answers", () => {
    const limits = { ...DEFAULT_WORKFLOW_LIMITS, maxNodes: 2 };
    const three = definition([startNode(), taskNode('a', 'rest_api_task', { url: 'https://x.example/' }), endNode()], chain('start', 'a', 'end'));
    const cyclic = definition([startNode(), endNode()], [...chain('start', 'end'), ...chain('end', 'start')]);
    for (let round = 0; round < 2; round += 1) {
      for (const def of [valid, three, cyclic, structuredClone(three)]) {
        expect(definitionProblems(def, limits)).toEqual(validateDefinition(def, limits));
        expect(definitionProblems(def, DEFAULT_WORKFLOW_LIMITS)).toEqual(validateDefinition(def, DEFAULT_WORKFLOW_LIMITS));
      }
    }
    expect(definitionProblems(three, limits)).toEqual(['Workflow has 3 nodes; at most 2 are allowed']);
    expect(definitionProblems(three, DEFAULT_WORKFLOW_LIMITS)).toEqual([]);
    expect(definitionProblems(cyclic, DEFAULT_WORKFLOW_LIMITS).length).toBeGreaterThan(0);
  });

  it('keys checkpoints by execution, shared by the first run and its resumes', () => {
    expect(executionKeyOf('wf_12', 12)).toBe('execution:12');
    expect(executionKeyOf('bench_x_resume_2', undefined)).toBe('job:bench_x');
  });

  it('takes the execution id from the payload, else from the job id', () => {
    const a = parse(job({ workflow_definition: valid, execution_id: 40 }));
    const b = parse(job({ workflow_definition: valid }, 'wf_41_resume_3'));
    const c = parse(job({ workflow_definition: valid }, 'custom'));
    expect(a.ok && a.job).toMatchObject({ executionId: 40, executionKey: 'execution:40' });
    expect(b.ok && b.job).toMatchObject({ executionId: 41, executionKey: 'execution:41' });
    expect(c.ok && c.job.executionId).toBeUndefined();
    expect(c.ok && c.job.executionKey).toBe('job:custom');
  });

  it('lists every problem of a bad payload, definition or inputs', () => {
    expect(parse(job({ inputs: {} }))).toMatchObject({ ok: false, executionId: 12, error: expect.stringContaining('Invalid workflow job payload: workflow_definition') });
    const cyclic = definition(
      [taskNode('a', 'rest_api_task', { url: 'http://x' }), taskNode('b', 'rest_api_task')],
      [
        { id: 'e1', source: 'a', target: 'b' },
        { id: 'e2', source: 'b', target: 'a' },
      ],
    );
    const bad = parse(job({ workflow_definition: cyclic }));
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^Invalid workflow definition: .*Cycles are not allowed.*Node b \(rest_api_task\): config/);
    const schema = { ...valid, input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } };
    expect(parse(job({ workflow_definition: schema, inputs: {} }))).toMatchObject({ ok: false, error: expect.stringContaining('Invalid inputs: ') });
    expect(parse(job({ workflow_definition: schema, inputs: { n: 1 } })).ok).toBe(true);
    expect(parse(job({ documents: [] }, 'x', 'OCR'))).toMatchObject({ ok: false, error: 'workflow_queue only takes task_based_workflow jobs, not OCR' });
  });

  it('carries the deadline and the resume instruction', () => {
    const parsed = parse(job({ workflow_definition: valid, deadline_at: '2030-01-01T00:00:00Z', resume: { node_id: 'ask', payload: { ok: 1 } } }));
    expect(parsed.ok && parsed.job.deadline).toEqual({ at: new Date('2030-01-01T00:00:00Z'), text: '2030-01-01T00:00:00Z' });
    expect(parsed.ok && parsed.job.resume).toEqual({ nodeId: 'ask', payload: { ok: 1 } });
  });

  it('acts for a user only when the platform signed that user for this job', () => {
    const signed = parse(job({ workflow_definition: valid, user_id: 7, user_signature: signJobUser(SECRET, 'wf_12', 7) }));
    expect(signed.ok && signed.job.userId).toBe(7);
    const refused = 'Invalid workflow job: user_id 7 is not signed by the platform';
    expect(parse(job({ workflow_definition: valid, user_id: 7 }))).toEqual({ ok: false, executionId: 12, error: refused });
    expect(parse(job({ workflow_definition: valid, user_id: 7, user_signature: signJobUser(SECRET, 'wf_12', 8) }))).toMatchObject({ ok: false, error: refused });
    expect(parse(job({ workflow_definition: valid, user_id: 7, user_signature: signJobUser(SECRET, 'wf_13', 7) }))).toMatchObject({ ok: false, error: refused });
    expect(parse(job({ workflow_definition: valid, user_id: 7, user_signature: signJobUser('another-secret-0123456789abcdef', 'wf_12', 7) }))).toMatchObject({ ok: false, error: refused });
    const anonymous = parse(job({ workflow_definition: valid }));
    expect(anonymous.ok && anonymous.job.userId).toBeUndefined();
  });
});
