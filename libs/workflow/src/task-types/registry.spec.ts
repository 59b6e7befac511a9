import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { validateAgainstSchema } from '../schema/validate-schema';
import { applyConfigDefaults, getTaskType, isKnownTaskType, TASK_TYPES } from './registry';
import { TASK_CATEGORIES } from './task-type';

const configErrors = (id: string, config: unknown) => validateAgainstSchema(getTaskType(id)!.config_schema, config, 'config');

describe('task-type registry', () => {
  it('holds exactly the 13 task types of spec 2.7 plus user_input_task, each once', () => {
    expect(TASK_TYPES.map((t) => t.id)).toEqual([
      'classification_task',
      'extraction_task',
      'llm_task',
      'summarization_task',
      'classify_and_extract',
      'cloud_drive_fetch_task',
      'rest_api_task',
      'email_send_task',
      'wait_task',
      'rag_enable_task',
      'rag_query_task',
      'decision',
      'user_input_task',
    ]);
  });

  it('puts each type in the category of spec 2.7', () => {
    const byCategory = Object.fromEntries(TASK_CATEGORIES.map((c) => [c, TASK_TYPES.filter((t) => t.category === c).map((t) => t.id)]));
    expect(byCategory).toEqual({
      'AI Operations': ['classification_task', 'extraction_task', 'llm_task', 'summarization_task', 'classify_and_extract', 'rag_enable_task', 'rag_query_task'],
      'Drive integration': ['cloud_drive_fetch_task'],
      'External Integrations': ['rest_api_task'],
      Communication: ['email_send_task'],
      'Workflow Control': ['wait_task', 'decision', 'user_input_task'],
    });
  });

  it('maps each type to the processor of spec 2.7', () => {
    expect(Object.fromEntries(TASK_TYPES.map((t) => [t.id, t.processor]))).toEqual({
      classification_task: 'classification',
      extraction_task: 'document_extraction',
      llm_task: 'llm_task',
      summarization_task: 'summarization',
      classify_and_extract: 'classify_and_extract',
      cloud_drive_fetch_task: 'drive_fetch',
      rest_api_task: 'rest_api',
      email_send_task: 'email_send',
      wait_task: 'wait',
      rag_enable_task: 'rest_api',
      rag_query_task: 'rest_api',
      decision: 'decision',
      user_input_task: 'user_input',
    });
  });

  it('gives every entry a name, description and short icon', () => {
    for (const entry of TASK_TYPES) {
      expect(entry.name.length).toBeGreaterThan(2);
      expect(entry.description.length).toBeGreaterThan(10);
      expect(entry.icon).toMatch(/^[a-z][a-z-]{1,30}$/);
    }
  });

  it('has schemas that compile under strict ajv (draft-07) and are object schemas', () => {
    // strictRequired is off: `anyOf: [{required: [...]}]` (cloud_drive_fetch_task) is standard JSON Schema.
    const ajv = new Ajv({ strict: true, strictRequired: false, allErrors: true });
    addFormats(ajv);
    for (const entry of TASK_TYPES) {
      for (const schema of [entry.config_schema, entry.input_schema, entry.output_schema]) {
        expect(schema['$schema']).toBe('http://json-schema.org/draft-07/schema#');
        expect(schema['type']).toBe('object');
        expect(() => ajv.compile(schema)).not.toThrow();
      }
    }
  });

  it('is deep-frozen so no consumer can alter a shared schema', () => {
    const rest = getTaskType('rest_api_task')!;
    expect(Object.isFrozen(rest)).toBe(true);
    expect(Object.isFrozen(rest.config_schema['properties'])).toBe(true);
    expect(() => {
      (rest.config_schema as Record<string, unknown>)['type'] = 'string';
    }).toThrow(TypeError);
  });

  it('resolves the decision_task alias and rejects unknown ids', () => {
    expect(getTaskType('decision_task')?.id).toBe('decision');
    expect(getTaskType('decision')?.id).toBe('decision');
    expect(getTaskType('custom_task')).toBeUndefined();
    expect(getTaskType('__proto__')).toBeUndefined();
    expect(getTaskType('toString')).toBeUndefined();
    expect(getTaskType(42)).toBeUndefined();
    expect(isKnownTaskType('wait_task')).toBe(true);
    expect(isKnownTaskType('nope')).toBe(false);
  });
});

describe('config schemas', () => {
  it('rest_api_task: url required, method enum, headers of strings, timeout > 0, JSONPath mapping, integer credential', () => {
    expect(configErrors('rest_api_task', { url: 'https://x.test' })).toEqual([]);
    expect(configErrors('rest_api_task', {})).toEqual(['config.url is required']);
    expect(configErrors('rest_api_task', { url: 'https://x.test', method: 'FETCH' })).toEqual(['config.method must be one of GET, POST, PUT, PATCH, DELETE, HEAD']);
    expect(configErrors('rest_api_task', { url: 'u', headers: { 'X-N': 5 } })).toEqual(['config.headers.X-N must be string']);
    expect(configErrors('rest_api_task', { url: 'u', timeout: 0 })).toEqual(['config.timeout must be > 0']);
    expect(configErrors('rest_api_task', { url: 'u', timeout: 'soon' })).toEqual(['config.timeout must be number or a {{template}} string']);
    expect(configErrors('rest_api_task', { url: 'u', timeout: '{{ inputs_timeout }}' })).toEqual([]);
    expect(configErrors('rest_api_task', { url: 'u', output_mapping: { id: '$.data.id', bad: 'data.id' } })).toEqual(['config.output_mapping.bad must be a JSONPath starting with $']);
    expect(configErrors('rest_api_task', { url: 'u', credential_id: '{{cred}}' })).toEqual(['config.credential_id must be integer']);
    expect(configErrors('rest_api_task', { url: 'u', body: { a: [1, { b: '{{x}}' }] }, method: 'POST' })).toEqual([]);
  });

  it('email_send_task: to array required (or one template), subject and body required, html boolean', () => {
    const base = { to: ['a@x.test'], subject: 'Hi', body: 'Text' };
    expect(configErrors('email_send_task', base)).toEqual([]);
    expect(configErrors('email_send_task', { ...base, to: '{{recipients}}' })).toEqual([]);
    expect(configErrors('email_send_task', { ...base, to: 'a@x.test' })).toEqual(['config.to must be array or a {{template}} string']);
    expect(configErrors('email_send_task', { ...base, to: [] })).toEqual(['config.to must NOT have fewer than 1 items']);
    expect(configErrors('email_send_task', { ...base, cc: [5] })).toEqual(['config.cc[0] must be string']);
    expect(configErrors('email_send_task', { to: ['a@x.test'] })).toEqual(['config.subject is required', 'config.body is required']);
    expect(configErrors('email_send_task', { ...base, html: 'yes' })).toEqual(['config.html must be boolean or a {{template}} string']);
  });

  it('wait_task: endpoint and watch_field required, dot notation, positive intervals', () => {
    expect(configErrors('wait_task', { endpoint: 'https://x.test/s', watch_field: 'data.status' })).toEqual([]);
    expect(configErrors('wait_task', {})).toEqual(['config.endpoint is required', 'config.watch_field is required']);
    expect(configErrors('wait_task', { endpoint: 'e', watch_field: 'data..status' })).toEqual(['config.watch_field must be a dot-notation path such as status or data.state']);
    expect(configErrors('wait_task', { endpoint: 'e', watch_field: 's', poll_interval: -1, failure_values: 'failed' })).toEqual([
      'config.failure_values must be array',
      'config.poll_interval must be > 0',
    ]);
  });

  it('cloud_drive_fetch_task: needs file_id, or folder_id plus file_name', () => {
    expect(configErrors('cloud_drive_fetch_task', { file_id: 'f1' })).toEqual([]);
    expect(configErrors('cloud_drive_fetch_task', { folder_id: 'd1', file_name: 'a.pdf' })).toEqual([]);
    const oneMode = ['config must include file_id, or folder_id and file_name'];
    expect(configErrors('cloud_drive_fetch_task', {})).toEqual(oneMode);
    expect(configErrors('cloud_drive_fetch_task', { folder_id: 'd1' })).toEqual(oneMode);
    expect(configErrors('cloud_drive_fetch_task', { file_id: '' })).toEqual(['config.file_id must NOT have fewer than 1 characters']);
  });

  it('decision: operator enum and both operands required', () => {
    expect(configErrors('decision', { operator: '>', left_operand: '$.a', right_operand: 1 })).toEqual([]);
    expect(configErrors('decision', { operator: '=~' })).toEqual([
      'config.left_operand is required',
      'config.right_operand is required',
      'config.operator must be one of ==, !=, >, <, >=, <=, in, contains, matches',
    ]);
  });

  it('AI types: enums for classification_type, model_type, summary_type, output_format', () => {
    expect(configErrors('classification_task', { classification_type: 'colour' })).toEqual(['config.classification_type must be one of document_type, sentiment, topic']);
    expect(configErrors('extraction_task', { model_type: 'provider_z', prompt_id: 0 })).toEqual([
      'config.prompt_id must be >= 1',
      'config.model_type must be one of provider_a, provider_b, provider_c',
    ]);
    expect(configErrors('extraction_task', { prompt_id: '{{prompt}}', output_format: 'xml' })).toEqual(['config.output_format must be one of json, text']);
    expect(configErrors('summarization_task', { summary_type: 'bullet_points', max_length: '{{words}}' })).toEqual([]);
    expect(configErrors('llm_task', { prompt_text: 'Summarise {{doc}}', process_combined_inputs: 'no' })).toEqual(['config.process_combined_inputs must be boolean or a {{template}} string']);
  });

  it('rag types: body with required document_id / query', () => {
    expect(configErrors('rag_enable_task', { body: { document_id: 3, force_reprocess: true } })).toEqual([]);
    expect(configErrors('rag_enable_task', { body: { document_id: '{{fetch.document_id}}' } })).toEqual([]);
    expect(configErrors('rag_enable_task', { body: {} })).toEqual(['config.body.document_id is required']);
    expect(configErrors('rag_query_task', {})).toEqual(['config.body is required']);
    expect(configErrors('rag_query_task', { body: { query: 'What?', top_k: 0 } })).toEqual(['config.body.top_k must be >= 1']);
  });

  it('user_input_task: input_schema object required', () => {
    expect(configErrors('user_input_task', { input_schema: { type: 'object' }, message: 'Approve?', timeout_seconds: 60 })).toEqual([]);
    expect(configErrors('user_input_task', { message: 'Approve?' })).toEqual(['config.input_schema is required']);
  });
});

describe('applyConfigDefaults', () => {
  it('fills the defaults of spec 2.7 without touching given values', () => {
    expect(applyConfigDefaults('rest_api_task', { url: 'u', method: 'POST' })).toEqual({ url: 'u', method: 'POST', timeout: 30 });
    expect(applyConfigDefaults('email_send_task', { to: ['a'] })).toEqual({ to: ['a'], cc: [], bcc: [], html: true });
    expect(applyConfigDefaults('wait_task', {})).toEqual({
      method: 'GET',
      success_value: 'completed',
      failure_values: ['failed', 'error'],
      poll_interval: 3,
      timeout: 120,
    });
    expect(applyConfigDefaults('decision_task', { operator: '==' })).toEqual({ operator: '==', true_label: 'true', false_label: 'false' });
    expect(applyConfigDefaults('rag_query_task', { body: { query: 'q' } })).toEqual({ body: { query: 'q', top_k: 5 } });
  });

  it('returns unfrozen copies of defaults', () => {
    const config = applyConfigDefaults('email_send_task', {});
    (config['cc'] as string[]).push('x');
    expect(applyConfigDefaults('email_send_task', {})['cc']).toEqual([]);
  });

  it('copies the config unchanged for unknown task types and non-object configs', () => {
    expect(applyConfigDefaults('nope', { a: 1 })).toEqual({ a: 1 });
    expect(applyConfigDefaults('summarization_task', 'x')).toEqual({ summary_type: 'brief', max_length: 500, model_type: 'provider_a' });
  });
});
