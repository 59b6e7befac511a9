import { isIn, isInt, isISO8601, isNotEmpty, isObject, isString, matches, maxLength, min } from 'class-validator';
import { JOB_ID_PATTERN, JOB_TYPES, JobMessageV1, JobRequest } from './jobs';
import { RESULT_MESSAGE_VERSIONS, RESULT_STATUSES, ResultMessage } from './results';
import { WorkflowJobPayload } from './workflow-jobs';

/** One decorator of a field: class-validator's own predicate and the message it gives. */
interface Rule {
  test(value: unknown): boolean;
  message: string;
}

/** One decorated field: `optional` is @IsOptional (null and undefined pass every rule). */
interface Field {
  name: string;
  optional?: boolean;
  /** In the order class-validator reports them: the decorator nearest the field first. */
  rules: Rule[];
  /** @ValidateNested: a value present is left to class-validator (checkContract answers undefined). */
  nested?: boolean;
}

const string = (f: string): Rule => ({ test: (v) => isString(v), message: `${f} must be a string` });
const notEmpty = (f: string): Rule => ({ test: (v) => isNotEmpty(v), message: `${f} should not be empty` });
const object = (f: string): Rule => ({ test: (v) => isObject(v), message: `${f} must be an object` });
const int = (f: string): Rule => ({ test: (v) => isInt(v), message: `${f} must be an integer number` });
const atLeast = (f: string, n: number): Rule => ({ test: (v) => min(v, n), message: `${f} must not be less than ${n}` });
const iso8601 = (f: string): Rule => ({ test: (v) => isISO8601(v), message: `${f} must be a valid ISO 8601 date string` });
const oneOf = (f: string, values: readonly unknown[], message = `${f} must be one of the following values: ${values.join(', ')}`): Rule => ({
  test: (v) => isIn(v, values as unknown[]),
  message,
});

/** The decorators of JobMessageV1 (jobs.ts), field by field. */
const JOB_MESSAGE_V1: Field[] = [
  { name: 'version', rules: [oneOf('version', [1])] },
  { name: 'job_id', rules: [notEmpty('job_id'), string('job_id')] },
  { name: 'job_type', rules: [oneOf('job_type', JOB_TYPES)] },
  { name: 'payload', rules: [object('payload')] },
  { name: 'submitted_at', rules: [string('submitted_at')] },
];

/** The decorators of JobRequest (jobs.ts), field by field. */
const JOB_REQUEST: Field[] = [
  {
    name: 'job_id',
    rules: [
      { test: (v) => matches(v as string, JOB_ID_PATTERN), message: 'job_id may only contain letters, digits and . _ : -' },
      { test: (v) => maxLength(v, 200), message: 'job_id must be shorter than or equal to 200 characters' },
      notEmpty('job_id'),
      string('job_id'),
    ],
  },
  { name: 'job_type', rules: [oneOf('job_type', JOB_TYPES, `job_type must be one of ${JOB_TYPES.join(', ')}`)] },
  { name: 'payload', rules: [object('payload')] },
  { name: 'token', optional: true, rules: [string('token')] },
];

/** The decorators of ResultMessage (results.ts), field by field. */
const RESULT_MESSAGE: Field[] = [
  { name: 'version', optional: true, rules: [oneOf('version', RESULT_MESSAGE_VERSIONS)] },
  { name: 'job_id', rules: [notEmpty('job_id'), string('job_id')] },
  { name: 'status', rules: [oneOf('status', RESULT_STATUSES)] },
  { name: 'outputs', optional: true, rules: [object('outputs')] },
  { name: 'error', optional: true, rules: [string('error')] },
  { name: 'failed_node', optional: true, rules: [string('failed_node')] },
  { name: 'error_type', optional: true, rules: [string('error_type')] },
  { name: 'execution_id', optional: true, rules: [atLeast('execution_id', 1), int('execution_id')] },
  { name: 'task_states', optional: true, rules: [object('task_states')] },
  { name: 'awaiting_node', optional: true, rules: [string('awaiting_node')] },
  { name: 'awaiting_input_schema', optional: true, rules: [object('awaiting_input_schema')] },
  { name: 'correlation_token', optional: true, rules: [string('correlation_token')] },
  { name: 'awaiting_since', optional: true, rules: [iso8601('awaiting_since')] },
  { name: 'sequence', optional: true, rules: [atLeast('sequence', 0), int('sequence')] },
  { name: 'emitted_at', optional: true, rules: [iso8601('emitted_at')] },
];

/** The decorators of WorkflowJobPayload (workflow-jobs.ts); a resume or retry (nested classes) goes to class-validator. */
const WORKFLOW_JOB_PAYLOAD: Field[] = [
  { name: 'workflow_definition', rules: [object('workflow_definition')] },
  { name: 'inputs', optional: true, rules: [object('inputs')] },
  { name: 'execution_id', optional: true, rules: [atLeast('execution_id', 1), int('execution_id')] },
  { name: 'activity_id', optional: true, rules: [atLeast('activity_id', 1), int('activity_id')] },
  { name: 'user_id', optional: true, rules: [atLeast('user_id', 1), int('user_id')] },
  { name: 'user_signature', optional: true, rules: [string('user_signature')] },
  { name: 'deadline_at', optional: true, rules: [iso8601('deadline_at')] },
  { name: 'data_shield_policy', optional: true, rules: [object('data_shield_policy')] },
  { name: 'resume', optional: true, nested: true, rules: [] },
  { name: 'retry_of', optional: true, nested: true, rules: [] },
];

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- keyed by the contract class itself
const CHECKS = new Map<Function, Field[]>([
  [JobMessageV1, JOB_MESSAGE_V1],
  [JobRequest, JOB_REQUEST],
  [ResultMessage, RESULT_MESSAGE],
  [WorkflowJobPayload, WORKFLOW_JOB_PAYLOAD],
]);

function problemsOf(fields: readonly Field[], plain: Record<string, unknown>): string[] | undefined {
  const errors: string[] = [];
  for (const field of fields) {
    const value = plain[field.name];
    if (field.optional && (value === undefined || value === null)) continue;
    if (field.nested) return undefined;
    for (const rule of field.rules) if (!rule.test(value)) errors.push(rule.message);
  }
  return errors;
}

/**
 * The problems class-validator would list for `plain` as an instance of
 * `cls` (the same messages, in the same order), for the contracts that
 * every execution crosses several times (JobMessageV1, JobRequest,
 * ResultMessage, WorkflowJobPayload without a resume or retry); `undefined`
 * for any other class or value, which the caller then
 * validates with class-validator. The rules are those of the classes'
 * decorators, written out once here: class-validator looks up a class's
 * metadata among every registered class on each call, which was most of
 * the router's and the workflow processor's validation time.
 * contract-checks.spec.ts holds every rule to class-validator's answer.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any contract class
export function checkContract(cls: Function, plain: Record<string, unknown>): string[] | undefined {
  const fields = CHECKS.get(cls);
  return fields ? problemsOf(fields, plain) : undefined;
}
