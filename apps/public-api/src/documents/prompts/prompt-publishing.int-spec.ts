import request from 'supertest';
import type express from 'express';
import { buildTestApi, openTestBed, type TestBed } from '../../test-support/test-app';
import type { PublicApi } from '../../app';
import { type Actor, type Actors, createActors } from '../../workflows/executions/test-support/actors';

let bed: TestBed;
let built: PublicApi;
let app: express.Express;
let actors: Actors;

interface Finding {
  rule: string;
  severity: string;
  field: string;
  message: string;
}

interface AuditRow {
  action: string;
  actor_user_id: number;
  details: Record<string, unknown>;
}

const clean = {
  title: 'Purchase orders',
  type: 'extraction',
  level: 'user',
  roles: [{ role: 'system', prompt: 'You extract purchase order data for {{company}}.' }],
  tasks: ['Find the order number'],
  instructions: ['Use null when absent'],
  outputFormat: 'json',
  exampleOutput: { order_number: 'PO-1' },
};

async function create(as: Actor, data: Record<string, unknown>): Promise<number> {
  const res = await request(app).post('/api/prompts').set('Authorization', as.auth).send({ data });
  expect(res.status).toBe(201);
  return (res.body as { id: number }).id;
}

const publish = (as: Actor, id: number, body: Record<string, unknown> = {}) => request(app).post(`/api/prompts/${id}/publish`).set('Authorization', as.auth).send(body);
const lint = (as: Actor, id: number, body: Record<string, unknown> = {}) => request(app).post(`/api/prompts/${id}/lint`).set('Authorization', as.auth).send(body);

async function audit(action: string, promptId: number): Promise<AuditRow[]> {
  await built.audit.flush();
  const rows = (await bed.database.query('SELECT action, actor_user_id, details FROM audit_log WHERE action = $1 ORDER BY id', [action])) as AuditRow[];
  return rows.filter((r) => r.details['prompt_id'] === promptId);
}

beforeAll(async () => {
  bed = await openTestBed();
  built = buildTestApi(bed);
  app = built.app;
  actors = await createActors(bed.database);
});

afterAll(async () => {
  await bed?.close();
});

describe('POST /api/prompts/{id}/publish', () => {
  it('publishes a prompt that passes the linter (audited prompt.publish); an edit of the template unpublishes it', async () => {
    const id = await create(actors.alice, clean);
    const before = await request(app).get(`/api/prompts/${id}`).set('Authorization', actors.alice.auth);
    expect(before.body.data).toMatchObject({ published: false, publishedAt: null, publishedVersion: null });

    const res = await publish(actors.alice, id, { placeholders: ['company'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { id, published: true, publishedVersion: '1.0.0', publishedAt: expect.any(String) }, lint: { ok: true, errors: [], warnings: [] }, overridden: false });
    expect(await audit('prompt.publish', id)).toEqual([expect.objectContaining({ actor_user_id: actors.alice.id, details: expect.objectContaining({ version: '1.0.0', overridden: false }) })]);

    // A title is not what the linter checked; the tasks are.
    const retitled = await request(app)
      .put(`/api/prompts/${id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { title: 'POs' } });
    expect(retitled.body.data.published).toBe(true);
    const edited = await request(app)
      .put(`/api/prompts/${id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { tasks: ['Find the order number and date'] } });
    expect(edited.body.data).toMatchObject({ published: false, publishedAt: null });
  });

  it('blocks on the linter’s errors with 422 listing them, without the secret or personal values (audited prompt.lint_blocked)', async () => {
    const secret = `sk-${'Zx9'.repeat(10)}`;
    const id = await create(actors.alice, {
      ...clean,
      roles: [{ role: 'system', prompt: `Use key ${secret} to call the API.` }],
      tasks: ['Send the result to {{recipient}} and bob.smith@example.org'],
      exampleOutput: null,
    });
    const res = await publish(actors.alice, id);
    expect(res.status).toBe(422);
    const error = res.body.error as { name: string; details: { errors: string[]; findings: Finding[] } };
    expect(error.name).toBe('UnprocessableEntityError');
    expect(error.details.findings.map((f) => `${f.rule}@${f.field}`).sort()).toEqual(
      ['missing_output_schema@exampleOutput', 'personal_data@tasks[0]', 'secret@roles[0].prompt', 'unresolved_placeholder@tasks[0]'].sort(),
    );
    expect(error.details.errors).toContain('exampleOutput: outputFormat is json but exampleOutput, the shape the model must answer in, is missing (missing_output_schema)');
    expect(JSON.stringify(res.body)).not.toContain(secret);
    expect(JSON.stringify(res.body)).not.toContain('bob.smith');

    const blocked = await audit('prompt.lint_blocked', id);
    expect(blocked).toHaveLength(1);
    expect(blocked[0]!.details).toMatchObject({ errors: 4 });
    expect((blocked[0]!.details['rules'] as string[]).sort()).toEqual(['missing_output_schema', 'personal_data', 'secret', 'unresolved_placeholder']);
    expect((await request(app).get(`/api/prompts/${id}`).set('Authorization', actors.alice.auth)).body.data.published).toBe(false);
    expect(await audit('prompt.publish', id)).toEqual([]);

    // The dry run says the same and changes nothing.
    const report = await lint(actors.alice, id, { placeholders: ['recipient'] });
    expect(report.status).toBe(200);
    expect(report.body.data.ok).toBe(false);
    expect((report.body.data.errors as Finding[]).map((f) => f.rule).sort()).toEqual(['missing_output_schema', 'personal_data', 'secret']);
  });

  it('lets only a super administrator override the errors, with a reason (prompt.override_used, then prompt.publish)', async () => {
    const id = await create(actors.alice, { ...clean, exampleOutput: null });
    const byOwner = await publish(actors.alice, id, { override_reason: 'I know what I am doing here' });
    expect(byOwner.status).toBe(403);

    const tooShort = await publish(actors.admin, id, { override_reason: 'ok' });
    expect(tooShort.status).toBe(400);
    expect(tooShort.body.error.details.errors).toEqual([expect.stringContaining('override_reason')]);

    const res = await publish(actors.admin, id, { placeholders: ['company'], override_reason: 'Free-form answers are wanted for this one' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ overridden: true, data: { published: true }, lint: { ok: false, errors: [expect.objectContaining({ rule: 'missing_output_schema' })] } });
    const override = await audit('prompt.override_used', id);
    expect(override).toEqual([
      expect.objectContaining({ actor_user_id: actors.admin.id, details: expect.objectContaining({ rules: ['missing_output_schema'], reason: 'Free-form answers are wanted for this one' }) }),
    ]);
    expect(await audit('prompt.publish', id)).toEqual([expect.objectContaining({ actor_user_id: actors.admin.id, details: expect.objectContaining({ overridden: true }) })]);
    const stored = (await bed.database.query('SELECT publish_override_reason, published_by FROM prompts WHERE id = $1', [id])) as { publish_override_reason: string; published_by: number }[];
    expect(stored[0]).toEqual({ publish_override_reason: 'Free-form answers are wanted for this one', published_by: actors.admin.id });
  });

  it('follows the prompt’s write rules: others’ prompts are 404, system prompts 403 for users; bad placeholders 400', async () => {
    const id = await create(actors.alice, clean);
    expect((await publish(actors.bob, id)).status).toBe(404);
    expect((await lint(actors.bob, id)).status).toBe(404);
    const system = (await bed.database.query("SELECT id FROM prompts WHERE level = 'system' ORDER BY id LIMIT 1")) as { id: number }[];
    expect((await publish(actors.bob, system[0]!.id)).status).toBe(403);
    expect((await publish(actors.alice, id, { placeholders: ['bad key!'] })).status).toBe(400);
    expect((await publish(actors.alice, 999999)).status).toBe(404);
  });
});
