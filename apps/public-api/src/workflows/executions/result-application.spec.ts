import type { ResultMessage } from '@docflow/contracts';
import { EXECUTION_STATUS_RANK, executionStatusOf, mayApplyResult } from './execution-status';
import { buildResultUpdate, executionIdOf, stepRowsOf, summarizeResult } from './result-application';

const msg = (m: Partial<ResultMessage>): ResultMessage => ({ job_id: 'wf_7', status: 'processing', ...m }) as ResultMessage;

describe('execution status order', () => {
  it('maps processing to running and ranks queued < running < awaiting < terminal', () => {
    expect(executionStatusOf('processing')).toBe('running');
    expect(executionStatusOf('awaiting_user_input')).toBe('awaiting_user_input');
    expect(EXECUTION_STATUS_RANK.queued).toBeLessThan(EXECUTION_STATUS_RANK.running);
    expect(EXECUTION_STATUS_RANK.running).toBeLessThan(EXECUTION_STATUS_RANK.awaiting_user_input);
    expect(EXECUTION_STATUS_RANK.awaiting_user_input).toBeLessThan(EXECUTION_STATUS_RANK.completed);
  });

  it('never leaves a terminal state and never moves back', () => {
    expect(mayApplyResult('running', 'completed')).toBe(true);
    expect(mayApplyResult('running', 'running')).toBe(true);
    expect(mayApplyResult('queued', 'running')).toBe(true);
    expect(mayApplyResult('awaiting_user_input', 'running')).toBe(false);
    expect(mayApplyResult('completed', 'running')).toBe(false);
    expect(mayApplyResult('completed', 'failed')).toBe(false);
    expect(mayApplyResult('cancelled', 'completed')).toBe(false);
  });
});

describe('executionIdOf', () => {
  it('prefers execution_id, else reads wf_<id> and wf_<id>_resume_<n> job ids', () => {
    expect(executionIdOf({ job_id: 'wf_12', execution_id: 40 })).toBe(40);
    expect(executionIdOf({ job_id: 'wf_12' })).toBe(12);
    expect(executionIdOf({ job_id: 'wf_12_resume_3' })).toBe(12);
    expect(executionIdOf({ job_id: 'extract_12' })).toBeUndefined();
    expect(executionIdOf({ job_id: 'wf_12', execution_id: -1 })).toBe(12);
  });
});

describe('buildResultUpdate', () => {
  it('keeps pause fields only when awaiting input, failure fields only when failed', () => {
    const awaiting = buildResultUpdate(7, msg({ status: 'awaiting_user_input', awaiting_node: 'n1', correlation_token: 'tok', awaiting_input_schema: { type: 'object' }, error: 'x', sequence: 4 }));
    expect(awaiting).toMatchObject({ status: 'awaiting_user_input', rank: 2, awaitingNode: 'n1', correlationToken: 'tok', awaitingInputSchema: { type: 'object' }, error: null, sequence: 4 });
    const failed = buildResultUpdate(7, msg({ status: 'failed', failed_node: 'n2', error_type: 'timeout', correlation_token: 'tok' }));
    expect(failed).toMatchObject({ status: 'failed', rank: 3, error: 'Workflow execution failed', errorType: 'timeout', failedNode: 'n2', correlationToken: null, awaitingNode: null });
  });

  it('ignores a sequence that is not a non-negative integer, and outputs that are not an object', () => {
    expect(buildResultUpdate(7, msg({ sequence: 1.5 })).sequence).toBeNull();
    expect(buildResultUpdate(7, msg({ sequence: '3' as unknown as number })).sequence).toBeNull();
    expect(buildResultUpdate(7, msg({ sequence: 0 })).sequence).toBe(0);
    expect(buildResultUpdate(7, msg({ outputs: [1] as unknown as Record<string, unknown> })).outputs).toBeNull();
  });
});

describe('stepRowsOf', () => {
  it('makes one row per started or settled node, with label, type, times, cost and a summary', () => {
    const rows = stepRowsOf({
      a: { status: 'completed', label: 'Fetch', task_type: 'rest_api_task', started_at: '2030-01-01T00:00:00Z', completed_at: '2030-01-01T00:00:01.5Z', cost: 0.2, result: { ok: true } },
      b: { status: 'running', started_at: 'not a date', completed_at: '2030-01-01T00:00:01Z' },
      c: { status: 'pending' },
      d: { status: 'exploded' },
      e: 'not an object',
      f: { status: 'failed', error: 'boom', error_type: 'http_error', cost: -1 },
    });
    expect(rows).toEqual([
      {
        node_id: 'a',
        step_name: 'Fetch',
        step_type: 'rest_api_task',
        status: 'completed',
        started_at: '2030-01-01T00:00:00.000Z',
        completed_at: '2030-01-01T00:00:01.500Z',
        cost: 0.2,
        result_summary: '{"ok":true}',
        error: null,
        error_type: null,
      },
      { node_id: 'b', step_name: 'b', step_type: null, status: 'running', started_at: null, completed_at: null, cost: null, result_summary: null, error: null, error_type: null },
      { node_id: 'f', step_name: 'f', step_type: null, status: 'failed', started_at: null, completed_at: null, cost: null, result_summary: null, error: 'boom', error_type: 'http_error' },
    ]);
  });
});

describe('summarizeResult', () => {
  it('keeps short text, JSON-encodes objects and cuts at 500 characters', () => {
    expect(summarizeResult('short')).toBe('short');
    expect(summarizeResult({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(summarizeResult(null)).toBeNull();
    const cut = summarizeResult('y'.repeat(501))!;
    expect(cut).toHaveLength(500);
    expect(cut.endsWith('…')).toBe(true);
    expect(summarizeResult('z'.repeat(500))).toBe('z'.repeat(500));
  });
});
