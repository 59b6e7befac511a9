import request from 'supertest';
import type express from 'express';
import { buildTestApp, openTestBed, TestBed } from '../../test-support/test-app';
import { Actors, createActors, sampleDefinition } from '../executions/test-support/actors';

let bed: TestBed;
let app: express.Express;
let actors: Actors;

interface ValidateBody {
  data: { valid: boolean; errors: string[] };
}

async function validate(body: unknown): Promise<request.Response> {
  return request(app)
    .post('/api/workflows/validate')
    .set('Authorization', actors.alice.auth)
    .send(body as object);
}

function decisionDefinition(edges: Record<string, unknown>[], config: Record<string, unknown> = { operator: '==', left_operand: '$.start.ok', right_operand: true }) {
  return {
    nodes: [
      { id: 'start', type: 'start', data: { label: 'Start' } },
      { id: 'check', type: 'task', data: { label: 'Check', task_type: 'decision', config } },
      { id: 'yes', type: 'end', data: { label: 'Yes' } },
      { id: 'no', type: 'end', data: { label: 'No' } },
    ],
    edges: [{ id: 'e0', source: 'start', target: 'check' }, ...edges],
    input_schema: { type: 'object', properties: {} },
  };
}

beforeAll(async () => {
  bed = await openTestBed();
  app = buildTestApp(bed);
  actors = await createActors(bed.database);
});

afterAll(async () => {
  await bed?.close();
});

describe('GET /api/workflows/task-types', () => {
  it('serves the 13 task types with their schemas', async () => {
    const res = await request(app).get('/api/workflows/task-types').set('Authorization', actors.bob.auth);
    expect(res.status).toBe(200);
    const types = (res.body as { data: { task_types: Record<string, unknown>[] } }).data.task_types;
    expect(types).toHaveLength(13);
    const ids = types.map((t) => t['id']);
    expect(new Set(ids).size).toBe(13);
    expect(ids).toEqual(expect.arrayContaining(['classification_task', 'extraction_task', 'llm_task', 'rest_api_task', 'email_send_task', 'wait_task', 'decision']));
    for (const t of types) {
      for (const key of ['id', 'name', 'category', 'description', 'icon', 'processor', 'config_schema', 'input_schema', 'output_schema']) {
        expect(t).toHaveProperty(key);
      }
    }
    const rest = types.find((t) => t['id'] === 'rest_api_task')!;
    expect(rest).toMatchObject({ category: 'External Integrations', processor: 'rest_api' });
    expect((rest['config_schema'] as { required?: string[] }).required).toContain('url');
  });

  it('needs a token', async () => {
    expect((await request(app).get('/api/workflows/task-types')).status).toBe(401);
  });
});

describe('POST /api/workflows/validate', () => {
  it('accepts a valid definition, including activity-style node types', async () => {
    const res = await validate({ workflow_definition: sampleDefinition() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { valid: true, errors: [] } });
  });

  it('reports a cycle with 200 and valid false', async () => {
    const def = sampleDefinition() as { edges: Record<string, unknown>[] };
    def.edges.push({ id: 'back', source: 'end', target: 'start' });
    const res = await validate({ workflow_definition: def });
    expect(res.status).toBe(200);
    const body = res.body as ValidateBody;
    expect(body.data.valid).toBe(false);
    expect(body.data.errors).toEqual(expect.arrayContaining([expect.stringMatching(/Cycles are not allowed/)]));
  });

  it('reports an edge to a missing node', async () => {
    const def = sampleDefinition() as { edges: Record<string, unknown>[] };
    def.edges.push({ id: 'ghost', source: 'fetch', target: 'nowhere' });
    const body = (await validate({ workflow_definition: def })).body as ValidateBody;
    expect(body.data.valid).toBe(false);
    expect(body.data.errors).toContain('Edge ghost references a non-existent target node nowhere');
  });

  it('checks the decision rules: two labelled edges and a complete config', async () => {
    const ok = (
      await validate({
        workflow_definition: decisionDefinition([
          { id: 'e1', source: 'check', target: 'yes', label: 'true' },
          { id: 'e2', source: 'check', target: 'no', label: 'false' },
        ]),
      })
    ).body as ValidateBody;
    expect(ok.data).toEqual({ valid: true, errors: [] });

    const oneEdge = (await validate({ workflow_definition: decisionDefinition([{ id: 'e1', source: 'check', target: 'yes', label: 'true' }]) })).body as ValidateBody;
    expect(oneEdge.data.valid).toBe(false);
    expect(oneEdge.data.errors).toEqual(expect.arrayContaining([expect.stringContaining('Decision node check must have exactly 2 outgoing edges (found 1)')]));

    const noOperator = (
      await validate({
        workflow_definition: decisionDefinition(
          [
            { id: 'e1', source: 'check', target: 'yes', label: 'true' },
            { id: 'e2', source: 'check', target: 'no', label: 'false' },
          ],
          { left_operand: '$.start.ok', right_operand: true },
        ),
      })
    ).body as ValidateBody;
    expect(noOperator.data.valid).toBe(false);
    expect(noOperator.data.errors.join('\n')).toMatch(/operator/);
  });

  it('accepts the data-wrapped form and refuses a missing workflow_definition with 400', async () => {
    const wrapped = await validate({ data: { workflow_definition: sampleDefinition() } });
    expect((wrapped.body as ValidateBody).data.valid).toBe(true);
    const missing = await validate({});
    expect(missing.status).toBe(400);
    expect((missing.body as { error: { message: string } }).error.message).toBe('workflow_definition is required');
    const notObject = await validate({ workflow_definition: 'nodes' });
    expect(notObject.status).toBe(200);
    expect((notObject.body as ValidateBody).data).toEqual({ valid: false, errors: ['Workflow definition must be an object'] });
  });
});
