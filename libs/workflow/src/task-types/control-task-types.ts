import { DEFAULT_WORKFLOW_LIMITS as LIMITS } from '../limits';
import { DECISION_OPERATORS, DEFAULT_FALSE_LABEL, DEFAULT_TRUE_LABEL } from '../decision/decision-config';
import type { TaskTypeDefinition } from './task-type';
import { objectSchema, positiveNumber, stringMap } from './schema-fragments';

const scalar = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };

export const waitTask: TaskTypeDefinition = {
  id: 'wait_task',
  name: 'Wait for status',
  category: 'Workflow Control',
  description: 'Polls an HTTP endpoint until a field reaches a success or failure value, or the timeout expires.',
  icon: 'hourglass',
  processor: 'wait',
  config_schema: objectSchema(
    {
      endpoint: { type: 'string', minLength: 1, description: 'URL to poll; may hold {{templates}}' },
      method: { type: 'string', enum: ['GET', 'POST'], default: 'GET' },
      headers: { ...stringMap, description: 'Request headers; values may hold {{templates}}' },
      watch_field: {
        type: 'string',
        pattern: '^[^.\\s]+(\\.[^.\\s]+)*$',
        description: 'Dot-notation path of the watched field in the response body',
      },
      success_value: { ...scalar, default: 'completed' },
      failure_values: { type: 'array', items: scalar, default: ['failed', 'error'] },
      poll_interval: positiveNumber(`Seconds between polls; at least ${LIMITS.minPollIntervalSeconds} unless the processor is configured otherwise (README, Limits)`, 3),
      timeout: positiveNumber(`Seconds before the node fails; at most ${LIMITS.maxWaitTimeoutSeconds} unless the processor is configured otherwise`, 120),
    },
    ['endpoint', 'watch_field'],
  ),
  input_schema: objectSchema({}, [], { description: 'Any values referenced by {{templates}} in the config' }),
  output_schema: objectSchema({
    status: { type: 'string', enum: ['success', 'failure'] },
    final_value: { description: 'Last value of the watched field' },
    response: { description: 'Last response body' },
    elapsed_seconds: { type: 'number' },
  }),
};

export const decisionTask: TaskTypeDefinition = {
  id: 'decision',
  name: 'Decision',
  category: 'Workflow Control',
  description: 'Compares two operands and continues on the true or the false branch only.',
  icon: 'git-branch',
  processor: 'decision',
  aliases: ['decision_task'],
  config_schema: objectSchema(
    {
      operator: { type: 'string', enum: [...DECISION_OPERATORS] },
      left_operand: { description: 'JSONPath into the workflow scope (e.g. $.node_id.field) or a literal' },
      right_operand: { description: 'Literal or JSONPath into the workflow scope' },
      true_label: { type: 'string', minLength: 1, default: DEFAULT_TRUE_LABEL },
      false_label: { type: 'string', minLength: 1, default: DEFAULT_FALSE_LABEL },
    },
    ['operator', 'left_operand', 'right_operand'],
  ),
  input_schema: objectSchema({}, [], { description: 'The workflow scope: inputs, context and upstream outputs' }),
  output_schema: objectSchema({
    result: { type: 'boolean' },
    branch: { type: 'string' },
    decision: { type: 'string', enum: ['true', 'false'] },
    active_path: { type: 'string' },
    condition: objectSchema({
      operator: { type: 'string' },
      left_operand: {},
      right_operand: {},
      left_value: {},
      right_value: {},
    }),
  }),
};

export const userInputTask: TaskTypeDefinition = {
  id: 'user_input_task',
  name: 'Wait for user input',
  category: 'Workflow Control',
  description: 'Pauses the execution until a user resumes it with a payload that matches input_schema.',
  icon: 'user-check',
  processor: 'user_input',
  config_schema: objectSchema(
    {
      input_schema: { type: 'object', description: 'JSON Schema the resume payload must satisfy' },
      message: { type: 'string', description: 'Text shown to the user; may hold {{templates}}' },
      prompt: { type: 'string', description: 'Question asked of the user; may hold {{templates}}' },
      timeout_seconds: positiveNumber('Seconds to wait before the execution fails'),
    },
    ['input_schema'],
  ),
  input_schema: objectSchema({}),
  output_schema: objectSchema({}, [], { description: 'The resume payload' }),
};
