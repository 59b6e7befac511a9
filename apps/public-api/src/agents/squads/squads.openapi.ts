import type { OpenApiRegistry, ParameterDoc } from '../../platform';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const idParam: ParameterDoc = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };

const task = {
  type: 'object',
  required: ['id', 'description', 'agent_slug'],
  properties: {
    id: { type: 'string' },
    description: { type: 'string', description: 'May use {{context}}: the outputs of the tasks it depends on (root tasks: the kickoff inputs)' },
    agent_slug: { type: 'string', description: 'A member' },
    depends_on: { type: 'array', items: { type: 'string' } },
    output_key: { type: 'string', description: 'Default: the task id' },
    expected_output: { type: 'string' },
  },
};
const fields = {
  name: { type: 'string' },
  slug: { type: 'string' },
  description: { type: ['string', 'null'] },
  process: { type: 'string', enum: ['sequential', 'hierarchical'], default: 'sequential' },
  manager_agent: { type: ['integer', 'string', 'null'], description: 'Agent id or slug; required for hierarchical' },
  agents: { type: 'array', items: { type: 'object', properties: { agent_slug: { type: 'string' }, role: { type: ['string', 'null'] } } } },
  tasks: { type: 'array', items: task },
  max_total_iterations: { type: 'integer', default: 30 },
  active: { type: 'boolean', default: true },
};

export function describeSquadRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('Squad', { type: 'object', properties: { id: { type: 'integer' }, ...fields, owner: { type: 'object' }, createdAt: { type: 'string' }, updatedAt: { type: 'string' } } });
  openapi.add('get', '/squads', { summary: 'The caller’s squads', tags: ['squads'], responses: { 200: { description: 'Squads', schema: dataOf({ type: 'array', items: ref('Squad') }) } } });
  openapi.add('post', '/squads', {
    summary: 'Create a squad; its pipeline is validated (duplicate ids, unknown dependencies, cycles, non-members)',
    tags: ['squads'],
    requestBody: dataOf({ type: 'object', required: ['name'], properties: fields }),
    responses: { 201: { description: 'Created', schema: dataOf(ref('Squad')) } },
    errors: [400, 409],
  });
  openapi.add('get', '/squads/{id}', {
    summary: 'One of the caller’s squads',
    tags: ['squads'],
    parameters: [idParam],
    responses: { 200: { description: 'The squad', schema: dataOf(ref('Squad')) } },
    errors: [404],
  });
  openapi.add('put', '/squads/{id}', {
    summary: 'Change a squad (validated as a whole)',
    tags: ['squads'],
    parameters: [idParam],
    requestBody: dataOf({ type: 'object', properties: fields }),
    responses: { 200: { description: 'Updated', schema: dataOf(ref('Squad')) } },
    errors: [400, 404],
  });
  openapi.add('delete', '/squads/{id}', {
    summary: 'Delete a squad',
    tags: ['squads'],
    parameters: [idParam],
    responses: { 200: { description: 'Deleted', schema: { type: 'object', properties: { success: { type: 'boolean' } } } } },
    errors: [404],
  });
  openapi.add('post', '/squads/{id}/kickoff', {
    summary: 'Run the squad now with these inputs and answer with the outcome',
    tags: ['squads'],
    parameters: [idParam],
    requestBody: { type: 'object', properties: { inputs: { type: 'object' } }, description: 'Also accepted inside `data`' },
    responses: {
      200: {
        description: 'The run',
        schema: dataOf({
          type: 'object',
          properties: {
            squad_id: { type: 'integer' },
            process: { type: 'string' },
            status: { type: 'string', enum: ['completed', 'failed'] },
            final_output: { type: 'string' },
            outputs: { type: 'object', description: 'The blackboard: _input and every output_key' },
            tasks: { type: 'array', items: { type: 'object', properties: { id: {}, agent_slug: {}, status: { enum: ['completed', 'skipped', 'failed'] }, output: {}, iterations: {}, error: {} } } },
            audit_trail: { type: 'array', items: { type: 'object', properties: { task_id: {}, agent_slug: {}, key: {}, timestamp: { type: 'integer' } } } },
            iterations_used: { type: 'integer' },
            max_total_iterations: { type: 'integer' },
          },
        }),
      },
    },
    errors: [400, 403, 404, 503],
  });
}
