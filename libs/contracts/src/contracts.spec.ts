import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ExtractRequest, extractRequestForm } from './llm';
import { JobRequest, queueForJobType } from './jobs';
import { deadLetterQueueOf, QUEUES } from './queues';
import { RESULT_MESSAGE_VERSION, ResultMessage } from './results';

const errorsOf = <T extends object>(cls: new () => T, plain: object) => validateSync(plainToInstance(cls, plain)).map((e) => e.property);

describe('queues and job routing', () => {
  it('routes workflow jobs to workflow_queue and the rest to extraction_queue', () => {
    expect(queueForJobType('task_based_workflow')).toBe('workflow_queue');
    expect(queueForJobType('document_extraction')).toBe('extraction_queue');
    expect(queueForJobType('classification')).toBe('extraction_queue');
    expect(queueForJobType('OCR')).toBe('extraction_queue');
    expect(QUEUES.results).toBe('results_queue');
    expect(deadLetterQueueOf('workflow_queue')).toBe('workflow_queue.dlq');
  });
});

describe('JobRequest', () => {
  it('accepts a well-formed job', () => {
    expect(errorsOf(JobRequest, { job_id: 'wf_12', job_type: 'task_based_workflow', payload: { inputs: {} } })).toEqual([]);
  });
  it('rejects unknown types, missing payload and odd ids', () => {
    expect(errorsOf(JobRequest, { job_id: 'a b', job_type: 'mining', payload: 'x' }).sort()).toEqual(['job_id', 'job_type', 'payload']);
  });
});

describe('ResultMessage', () => {
  it('accepts the spec shape and rejects unknown statuses', () => {
    expect(errorsOf(ResultMessage, { job_id: 'wf_1', status: 'completed', outputs: {}, task_states: { n1: { status: 'completed' } } })).toEqual([]);
    expect(errorsOf(ResultMessage, { job_id: 'wf_1', status: 'exploded' })).toEqual(['status']);
    expect(errorsOf(ResultMessage, { job_id: 'wf_1', status: 'awaiting_user_input', awaiting_since: 'yesterday' })).toEqual(['awaiting_since']);
  });

  it('reads a message without version as version 1 and refuses versions it does not know', () => {
    expect(errorsOf(ResultMessage, { version: RESULT_MESSAGE_VERSION, job_id: 'wf_1', status: 'completed' })).toEqual([]);
    expect(errorsOf(ResultMessage, { job_id: 'wf_1', status: 'completed' })).toEqual([]);
    expect(errorsOf(ResultMessage, { version: 2, job_id: 'wf_1', status: 'completed' })).toEqual(['version']);
  });
});

describe('extractRequestForm', () => {
  const form = (plain: object) => extractRequestForm(plainToInstance(ExtractRequest, plain));
  it('recognises both forms and neither', () => {
    expect(form({ content: 'text', prompt_template: 'Summarise: {content}' })).toBe('legacy');
    expect(form({ messages: [{ role: 'user', content: 'hi' }] })).toBe('messages');
    expect(form({ content: 'text' })).toBe('none');
    expect(form({ messages: [] })).toBe('none');
  });
});
