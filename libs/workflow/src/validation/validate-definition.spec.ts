import { DEFAULT_WORKFLOW_LIMITS } from '../limits';
import { validateDefinition } from './validate-definition';

type Json = Record<string, unknown>;

const node = (id: string, type: string, data: Json = {}): Json => ({ id, type, position: { x: 0, y: 0 }, data });
const task = (id: string, taskType: string, config: Json = {}): Json => node(id, 'task', { label: id, task_type: taskType, config });
const edge = (id: string, source: string, target: string, extra: Json = {}): Json => ({ id, source, target, ...extra });
const rest = (id: string) => task(id, 'rest_api_task', { url: 'https://api.example.test/x' });
const decisionConfig = { operator: '>', left_operand: '$.amount', right_operand: 100 };

function definition(nodes: Json[], edges: Json[], extra: Json = {}): Json {
  return { nodes, edges, ...extra };
}

describe('validateDefinition: structure', () => {
  it('accepts a valid linear definition with start and end nodes', () => {
    const def = definition([node('start', 'start'), rest('call'), node('end', 'end')], [edge('e1', 'start', 'call'), edge('e2', 'call', 'end')], {
      input_schema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    });
    expect(validateDefinition(def)).toEqual([]);
  });

  it('accepts an empty workflow', () => {
    expect(validateDefinition({ nodes: [], edges: [] })).toEqual([]);
  });

  it('rejects non-objects and missing arrays', () => {
    expect(validateDefinition(null)).toEqual(['Workflow definition must be an object']);
    expect(validateDefinition([])).toEqual(['Workflow definition must be an object']);
    expect(validateDefinition('x')).toEqual(['Workflow definition must be an object']);
    expect(validateDefinition({})).toEqual(['Workflow definition must have a nodes array', 'Workflow definition must have an edges array']);
    expect(validateDefinition({ nodes: [], edges: {} })).toEqual(['Workflow definition must have an edges array']);
  });

  it('reports malformed nodes and edges by index', () => {
    const def = { nodes: [null, { type: 'start' }, node('a', 'start')], edges: [7, { source: 'a', target: 'a2' }] };
    expect(validateDefinition(def)).toEqual([
      'Node at index 0 must be an object',
      'Node at index 1 must have a non-empty string id',
      'Edge at index 0 must be an object',
      'Edge at index 1 must have a non-empty string id',
      'Edge at index 1 references a non-existent target node a2',
    ]);
  });

  it('reports duplicate node and edge ids once each', () => {
    const def = definition([node('a', 'start'), node('a', 'end'), node('a', 'end'), node('b', 'end')], [edge('e1', 'a', 'b'), edge('e1', 'a', 'b')]);
    expect(validateDefinition(def)).toEqual(['Duplicate node id: a', 'Duplicate edge id: e1']);
  });

  it('refuses node ids that would shadow the run context (user_id, execution_id)', () => {
    const def = definition(
      [node('start', 'start'), rest('user_id'), rest('execution_id'), node('end', 'end')],
      [edge('e1', 'start', 'user_id'), edge('e2', 'user_id', 'execution_id'), edge('e3', 'execution_id', 'end')],
    );
    expect(validateDefinition(def)).toEqual([
      'Node user_id: the id "user_id" is reserved for the run\'s context (user_id, execution_id)',
      'Node execution_id: the id "execution_id" is reserved for the run\'s context (user_id, execution_id)',
    ]);
  });

  it('reports edges whose source or target does not exist', () => {
    const def = definition([node('a', 'start')], [edge('e1', 'ghost', 'a'), edge('e2', 'a', 'x'), edge('e3', 'a', '')]);
    expect(validateDefinition(def)).toEqual(['Edge e1 references a non-existent source node ghost', 'Edge e2 references a non-existent target node x', 'Edge e3 must have a target node id']);
  });

  it('reports unknown node types and missing types', () => {
    const def = definition([node('a', 'mystery'), { id: 'b', data: {} }, { id: 'c', type: 'start', data: 'x' }, { id: 'd', type: 'wait_task', data: [] }], []);
    expect(validateDefinition(def)).toEqual([
      'Node a has unknown type "mystery" (expected task, start, end, input, output or a task type id)',
      'Node b must have a type',
      'Node c: data must be an object',
      'Node d: data must be an object',
    ]);
  });
});

describe('validateDefinition: cycles', () => {
  it('reports a cycle naming its nodes', () => {
    const def = definition([node('s', 'start'), rest('a'), rest('b'), rest('c')], [edge('e1', 's', 'a'), edge('e2', 'a', 'b'), edge('e3', 'b', 'c'), edge('e4', 'c', 'a')]);
    expect(validateDefinition(def)).toEqual(['Cycles are not allowed in the workflow (cycle through nodes: a, b, c)']);
  });

  it('reports a self-loop and two separate cycles', () => {
    const def = definition([rest('a'), rest('b'), rest('c'), rest('d')], [edge('e1', 'a', 'a'), edge('e2', 'b', 'c'), edge('e3', 'c', 'b'), edge('e4', 'c', 'd')]);
    expect(validateDefinition(def)).toEqual(['Cycles are not allowed in the workflow (cycle through nodes: a)', 'Cycles are not allowed in the workflow (cycle through nodes: b, c)']);
  });

  it('does not mistake a diamond for a cycle', () => {
    const def = definition([rest('a'), rest('b'), rest('c'), rest('d')], [edge('e1', 'a', 'b'), edge('e2', 'a', 'c'), edge('e3', 'b', 'd'), edge('e4', 'c', 'd')]);
    expect(validateDefinition(def)).toEqual([]);
  });

  it('handles a long chain without recursion limits', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `n${i}`);
    const def = definition(
      ids.map((id) => node(id, 'start')),
      ids
        .slice(1)
        .map((id, i) => edge(`e${i}`, ids[i]!, id))
        .concat([edge('back', 'n4999', 'n0')]),
    );
    const errors = validateDefinition(def, { ...DEFAULT_WORKFLOW_LIMITS, maxNodes: 5000 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Cycles are not allowed in the workflow \(cycle through nodes: n0, n1, n2, /);
  });
});

describe('validateDefinition: task nodes', () => {
  it('accepts activity-style nodes that carry the task type in `type`', () => {
    const def = definition([node('call', 'rest_api_task', { config: { url: 'https://x.test' } }), node('d', 'decision_task', { config: decisionConfig })], [edge('e1', 'call', 'd')]);
    expect(validateDefinition(def)).toEqual(['Decision node d must have exactly 2 outgoing edges (found 0)']);
  });

  it('reports task nodes without or with an unknown task_type', () => {
    const def = definition([node('a', 'task', {}), task('b', 'teleport_task'), task('c', 'custom_task')], []);
    expect(validateDefinition(def)).toEqual(['Node a has no task_type', 'Node b has unknown task_type "teleport_task"', 'Node c has unknown task_type "custom_task"']);
  });

  it('names the node and the field for config violations, for every node', () => {
    const def = definition(
      [
        task('call', 'rest_api_task', { method: 'GET', timeout: -5 }),
        task('mail', 'email_send_task', { to: 'boss@x.test', subject: 'Hi' }),
        task('fetch', 'cloud_drive_fetch_task', {}),
        task('wait', 'wait_task', { endpoint: 'ftp://x.test/status', watch_field: 'status' }),
      ],
      [],
    );
    expect(validateDefinition(def)).toEqual([
      'Node call (rest_api_task): config.url is required',
      'Node call (rest_api_task): config.timeout must be > 0',
      'Node mail (email_send_task): config.body is required',
      'Node mail (email_send_task): config.to must be array or a {{template}} string',
      'Node fetch (cloud_drive_fetch_task): config must include file_id, or folder_id and file_name',
      'Node wait (wait_task): config.endpoint must be an http or https URL',
    ]);
  });

  it('checks literal URLs but leaves templated URLs to run time', () => {
    const def = definition(
      [task('a', 'rest_api_task', { url: '{{base_url}}/items' }), task('b', 'rest_api_task', { url: 'not a url' }), task('c', 'rest_api_task', { url: 'javascript:alert(1)' })],
      [],
    );
    expect(validateDefinition(def)).toEqual(['Node b (rest_api_task): config.url must be an absolute http or https URL', 'Node c (rest_api_task): config.url must be an http or https URL']);
  });

  it('requires a config object', () => {
    const def = definition([node('a', 'task', { task_type: 'rest_api_task', config: 'url=x' })], []);
    expect(validateDefinition(def)).toEqual(['Node a (rest_api_task): config must be object']);
  });

  it('checks the resume schema of user_input_task', () => {
    const def = definition(
      [
        task('ok', 'user_input_task', { input_schema: { type: 'object', properties: { approved: { type: 'boolean' } } } }),
        task('bad', 'user_input_task', { input_schema: { type: 'array', items: { type: 'nonsense' } } }),
      ],
      [],
    );
    const errors = validateDefinition(def);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBe('Node bad (user_input_task): config.input_schema must have type "object"');
    expect(errors[1]).toMatch(/^Node bad \(user_input_task\): config.input_schema is not a valid JSON Schema: .*items\/type/);
  });
});

describe('validateDefinition: decision nodes', () => {
  const branches = (d: string, t: Json, f: Json) => [edge('et', d, 'yes', t), edge('ef', d, 'no', f)];
  const decisionDef = (config: Json, edges: Json[]) => definition([task('d', 'decision', config), rest('yes'), rest('no'), rest('other')], edges);

  it('accepts two edges labelled true and false, by label or sourceHandle, any case', () => {
    expect(validateDefinition(decisionDef(decisionConfig, branches('d', { label: 'true' }, { label: 'false' })))).toEqual([]);
    expect(validateDefinition(decisionDef(decisionConfig, branches('d', { sourceHandle: 'True' }, { sourceHandle: ' FALSE ' })))).toEqual([]);
    expect(validateDefinition(decisionDef(decisionConfig, branches('d', { label: 'Yes!', sourceHandle: 'true' }, { label: 'false' })))).toEqual([]);
  });

  it('accepts custom branch labels and the decision_task alias', () => {
    const config = { ...decisionConfig, true_label: 'approve', false_label: 'reject' };
    const def = definition([task('d', 'decision_task', config), rest('yes'), rest('no')], branches('d', { label: 'approve' }, { label: 'Reject' }));
    expect(validateDefinition(def)).toEqual([]);
  });

  it('rejects a decision without exactly two outgoing edges', () => {
    expect(validateDefinition(decisionDef(decisionConfig, [edge('et', 'd', 'yes', { label: 'true' })]))).toEqual([
      'Decision node d must have exactly 2 outgoing edges (found 1)',
      'Decision node d has no outgoing edge labelled "false"',
    ]);
    const three = [...branches('d', { label: 'true' }, { label: 'false' }), edge('e3', 'd', 'other', { label: 'false' })];
    expect(validateDefinition(decisionDef(decisionConfig, three))).toEqual(['Decision node d must have exactly 2 outgoing edges (found 3)', 'Decision node d has 2 outgoing edges labelled "false"']);
  });

  it('rejects unlabelled, wrongly labelled and ambiguous edges', () => {
    expect(validateDefinition(decisionDef(decisionConfig, branches('d', {}, { label: 'false' })))).toEqual([
      'Edge et from decision node d must be labelled "true" or "false" (label or sourceHandle)',
      'Decision node d has no outgoing edge labelled "true"',
    ]);
    expect(validateDefinition(decisionDef(decisionConfig, branches('d', { label: 'maybe' }, { label: 'true', sourceHandle: 'false' })))).toEqual([
      'Edge et from decision node d is labelled "maybe"; expected "true" or "false"',
      'Edge ef from decision node d is labelled as both branches',
    ]);
    expect(validateDefinition(decisionDef(decisionConfig, branches('d', { label: 'true' }, { label: 'true' })))).toEqual([
      'Decision node d has 2 outgoing edges labelled "true"',
      'Decision node d has no outgoing edge labelled "false"',
    ]);
  });

  it('rejects a decision without operator or operands, or with an unknown operator', () => {
    const edges = branches('d', { label: 'true' }, { label: 'false' });
    expect(validateDefinition(decisionDef({}, edges))).toEqual([
      'Node d (decision): config.operator is required',
      'Node d (decision): config.left_operand is required',
      'Node d (decision): config.right_operand is required',
    ]);
    expect(validateDefinition(decisionDef({ ...decisionConfig, operator: 'like' }, edges))).toEqual(['Node d (decision): config.operator must be one of ==, !=, >, <, >=, <=, in, contains, matches']);
  });

  it('rejects equal branch labels and unusable literal patterns', () => {
    const edges = branches('d', { label: 'go' }, { label: 'stop' });
    const config = { operator: 'matches', left_operand: '$.x', right_operand: '(a)\\1', true_label: 'go', false_label: 'GO' };
    expect(validateDefinition(decisionDef(config, edges))).toEqual([
      'Node d (decision): config.true_label and false_label must differ',
      'Node d (decision): config.right_operand is not supported by the linear-time engine (no lookaround or backreferences): invalid escape sequence: `\\1`',
    ]);
  });

  it('checks literal patterns but not JSONPath or templated ones', () => {
    const edges = branches('d', { label: 'true' }, { label: 'false' });
    const literal = { operator: 'matches', left_operand: '$.x', right_operand: '[unclosed' };
    expect(validateDefinition(decisionDef(literal, edges))[0]).toMatch(/^Node d \(decision\): config.right_operand is not a valid regular expression/);
    expect(validateDefinition(decisionDef({ ...literal, right_operand: '$.pattern' }, edges))).toEqual([]);
    expect(validateDefinition(decisionDef({ ...literal, right_operand: '{{pattern}}' }, edges))).toEqual([]);
  });
});

describe('validateDefinition: input_schema', () => {
  const empty = (input_schema: unknown) => definition([], [], { input_schema });

  it('accepts object schemas in draft-07 and 2020-12', () => {
    expect(validateDefinition(empty({ type: 'object', properties: { a: { type: 'string', format: 'email' } } }))).toEqual([]);
    expect(
      validateDefinition(empty({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: { name: { type: 'string' } }, properties: { a: { $ref: '#/$defs/name' } } })),
    ).toEqual([]);
  });

  it('rejects non-object, non-object-typed and invalid schemas', () => {
    expect(validateDefinition(empty('x'))).toEqual(['input_schema must be a JSON Schema object']);
    expect(validateDefinition(empty(null))).toEqual(['input_schema must be a JSON Schema object']);
    expect(validateDefinition(empty({ type: 'string' }))).toEqual(['input_schema must have type "object"']);
    const errors = validateDefinition(empty({ type: 'object', properties: { a: { type: 'strnig' } } }));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^input_schema is not a valid JSON Schema: data\/properties\/a\/type must be equal to one of the allowed values/);
    expect(validateDefinition(empty({ $schema: 'http://example.test/my-dialect', type: 'object' }))).toEqual([
      'input_schema is not a valid JSON Schema: unsupported $schema http://example.test/my-dialect (use draft-07, 2019-09 or 2020-12)',
    ]);
  });

  it('lists structural, schema and node problems together', () => {
    const def = definition([task('a', 'rest_api_task', {}), node('a', 'end')], [edge('e1', 'a', 'b'), edge('e2', 'a', 'a')], { input_schema: { type: 'array' } });
    expect(validateDefinition(def)).toEqual([
      'input_schema must have type "object"',
      'Duplicate node id: a',
      'Edge e1 references a non-existent target node b',
      'Cycles are not allowed in the workflow (cycle through nodes: a)',
      'Node a (rest_api_task): config.url is required',
    ]);
  });

  it('does not mutate its input', () => {
    const def = definition([node('call', 'rest_api_task', { config: { url: 'https://x.test' } })], []);
    const before = JSON.stringify(def);
    validateDefinition(def);
    expect(JSON.stringify(def)).toBe(before);
  });
});
