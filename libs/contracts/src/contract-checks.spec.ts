import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { checkContract } from './contract-checks';
import { JobMessageV1, JobRequest } from './jobs';
import { ResultMessage } from './results';
import { WorkflowJobPayload } from './workflow-jobs';
import { ExtractRequest } from './llm';

/** What class-validator lists for `plain`, flattened as the messaging codec reports it (these classes have no nested rules). */
function classValidatorErrors(cls: new () => object, plain: Record<string, unknown>): string[] {
  return validateSync(plainToInstance(cls, plain)).flatMap((e) => Object.values(e.constraints ?? {}));
}

/** Values a field may be given in JSON, valid and not, for every rule these contracts use. */
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  'x',
  'wf_12',
  'a b',
  'é',
  'x'.repeat(200),
  'y'.repeat(201),
  0,
  1,
  2,
  -1,
  1.5,
  1e21,
  true,
  false,
  {},
  { a: 1 },
  [],
  ['x'],
  '1',
  '2026-11-27T07:00:00.000Z',
  '2026-11-27',
  '2026-13-40T99:00:00Z',
  'not a date',
  'processing',
  'completed',
  'failed',
  'awaiting_user_input',
  'task_based_workflow',
  'classification',
  'OCR',
];

const VALID: Record<string, Record<string, unknown>> = {
  JobMessageV1: { version: 1, job_id: 'wf_12', job_type: 'task_based_workflow', payload: { workflow_definition: {} }, submitted_at: '2026-11-27T07:00:00.000Z' },
  JobRequest: { job_id: 'wf_12', job_type: 'task_based_workflow', payload: { inputs: {} }, token: 'jwt' },
  ResultMessage: {
    version: 1,
    job_id: 'wf_12',
    status: 'awaiting_user_input',
    outputs: {},
    error: 'e',
    failed_node: 'n',
    error_type: 'node_error',
    execution_id: 12,
    task_states: { start: { status: 'completed' } },
    awaiting_node: 'n',
    awaiting_input_schema: {},
    correlation_token: 't',
    awaiting_since: '2026-11-27T07:00:00.000Z',
    sequence: 0,
    emitted_at: '2026-11-27T07:00:00.000Z',
  },
  WorkflowJobPayload: {
    workflow_definition: { nodes: [] },
    inputs: { amount: 1 },
    execution_id: 12,
    activity_id: 3,
    user_id: 7,
    user_signature: 'sig',
    deadline_at: '2026-11-27T07:00:00.000Z',
    data_shield_policy: {},
  },
};

const CLASSES: [string, new () => object][] = [
  ['JobMessageV1', JobMessageV1],
  ['JobRequest', JobRequest],
  ['ResultMessage', ResultMessage],
  ['WorkflowJobPayload', WorkflowJobPayload],
];

/** A small deterministic generator, so that a failing vector can be replayed. */
function prng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('checkContract', () => {
  it.each(CLASSES)('accepts a valid %s as class-validator does', (name, cls) => {
    const plain = VALID[name] as Record<string, unknown>;
    expect(classValidatorErrors(cls, plain)).toEqual([]);
    expect(checkContract(cls, plain)).toEqual([]);
  });

  it.each(CLASSES)('lists exactly what class-validator lists for %s with one field changed', (name, cls) => {
    const valid = VALID[name] as Record<string, unknown>;
    let invalid = 0;
    for (const field of Object.keys(valid)) {
      for (const value of VALUES) {
        const plain = { ...valid, [field]: value };
        if (value === undefined) delete plain[field];
        const expected = classValidatorErrors(cls, plain);
        if (expected.length) invalid += 1;
        expect({ field, value, errors: checkContract(cls, plain) }).toEqual({ field, value, errors: expected });
      }
    }
    // The vectors do reach the rules: most of them break something.
    expect(invalid).toBeGreaterThan(Object.keys(valid).length * 10);
  });

  it.each(CLASSES)('lists exactly what class-validator lists for %s with many fields changed at once', (name, cls) => {
    const random = prng(16);
    const fields = [...Object.keys(VALID[name] as object), 'unknown_field'];
    for (let i = 0; i < 400; i += 1) {
      const plain: Record<string, unknown> = {};
      for (const field of fields) {
        const value = VALUES[Math.floor(random() * VALUES.length)];
        if (value !== undefined) plain[field] = value;
      }
      expect({ plain, errors: checkContract(cls, plain) }).toEqual({ plain, errors: classValidatorErrors(cls, plain) });
    }
  });

  it('has no hand-written check for other contracts (they keep class-validator)', () => {
    expect(checkContract(ExtractRequest, {})).toBeUndefined();
  });

  it('leaves a workflow payload with a resume or a retry (nested classes) to class-validator', () => {
    const valid = VALID['WorkflowJobPayload'] as Record<string, unknown>;
    expect(checkContract(WorkflowJobPayload, { ...valid, resume: { node_id: 'n', payload: {} } })).toBeUndefined();
    expect(checkContract(WorkflowJobPayload, { ...valid, retry_of: 'x' })).toBeUndefined();
    expect(checkContract(WorkflowJobPayload, { ...valid, resume: null, retry_of: undefined })).toEqual([]);
  });
});
