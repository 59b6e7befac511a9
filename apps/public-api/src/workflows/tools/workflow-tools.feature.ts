import { TASK_TYPES, validateDefinition, type TaskTypeDefinition } from '@docflow/workflow';
import { BadRequestError } from '@docflow/service-kit';
import { requestFields } from '../../platform';
import type { ApiFeature, PlatformServices } from '../../platform';
import type { OpenApiRegistry } from '../../platform';
import type { AuthGuards } from '../../identity';

/** A registry entry as GET /workflows/task-types serves it (spec 2.7). */
export function toTaskTypeView(t: TaskTypeDefinition): Record<string, unknown> {
  return {
    id: t.id,
    name: t.name,
    category: t.category,
    description: t.description,
    icon: t.icon,
    processor: t.processor,
    ...(t.aliases && t.aliases.length > 0 ? { aliases: [...t.aliases] } : {}),
    config_schema: t.config_schema,
    input_schema: t.input_schema,
    output_schema: t.output_schema,
  };
}

/** `{valid, errors}` for a definition; problems are reported, never thrown (spec 4.7). */
export function validateWorkflowRequest(body: unknown): { valid: boolean; errors: string[] } {
  const fields = requestFields(body);
  const definition = fields['workflow_definition'];
  if (definition === undefined || definition === null) {
    throw BadRequestError.withErrors('workflow_definition is required', ['workflow_definition is required']);
  }
  const errors = validateDefinition(definition);
  return { valid: errors.length === 0, errors };
}

/** GET /workflows/task-types and POST /workflows/validate (spec 4.7). */
export const workflowToolsFeature: ApiFeature<Pick<PlatformServices, 'openapi'> & { auth: AuthGuards }> = {
  name: 'workflow-tools',
  register(api, ctx) {
    const taskTypes = TASK_TYPES.map(toTaskTypeView);

    api.get('/workflows/task-types', ctx.auth.requireAuth, (_req, res) => {
      res.json({ data: { task_types: taskTypes } });
    });

    api.post('/workflows/validate', ctx.auth.requireAuth, (req, res) => {
      res.json({ data: validateWorkflowRequest(req.body) });
    });

    describeWorkflowToolRoutes(ctx.openapi);
  },
};

function describeWorkflowToolRoutes(openapi: OpenApiRegistry): void {
  openapi.addSchema('TaskType', {
    type: 'object',
    required: ['id', 'name', 'category', 'description', 'icon', 'processor', 'config_schema', 'input_schema', 'output_schema'],
    properties: {
      id: { type: 'string', examples: ['rest_api_task'] },
      name: { type: 'string' },
      category: { type: 'string', enum: ['AI Operations', 'Drive integration', 'External Integrations', 'Communication', 'Workflow Control'] },
      description: { type: 'string' },
      icon: { type: 'string' },
      processor: { type: 'string' },
      aliases: { type: 'array', items: { type: 'string' }, description: 'Other ids that resolve to this type (e.g. decision_task)' },
      config_schema: { type: 'object' },
      input_schema: { type: 'object' },
      output_schema: { type: 'object' },
    },
  });
  openapi.add('get', '/workflows/task-types', {
    summary: 'The 13 task types a workflow node can have',
    tags: ['workflows'],
    responses: {
      200: {
        description: 'The registry',
        schema: {
          type: 'object',
          properties: { data: { type: 'object', properties: { task_types: { type: 'array', items: { $ref: '#/components/schemas/TaskType' } } } } },
        },
      },
    },
  });
  openapi.add('post', '/workflows/validate', {
    summary: 'Validate a workflow definition (an invalid one still answers 200 with valid false)',
    tags: ['workflows'],
    requestBody: { type: 'object', required: ['workflow_definition'], properties: { workflow_definition: { type: 'object' } } },
    responses: {
      200: {
        description: 'Validation result',
        schema: {
          type: 'object',
          properties: {
            data: { type: 'object', required: ['valid', 'errors'], properties: { valid: { type: 'boolean' }, errors: { type: 'array', items: { type: 'string' } } } },
          },
        },
      },
    },
    errors: [400],
  });
}
