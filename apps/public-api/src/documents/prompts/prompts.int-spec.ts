import request from 'supertest';
import type express from 'express';
import { buildTestApp, openTestBed, TestBed, testConfig } from '../../test-support/test-app';
import { Actors, createActors } from '../../workflows/executions/test-support/actors';

const SERVICE_KEY = 'prompts-test-service-key-0123456789';
const SEEDED = ['Contract Summary', 'Document Classification', 'Invoice Extraction', 'Receipt Extraction'];

let bed: TestBed;
let app: express.Express;
let actors: Actors;

interface PromptBody {
  id: number;
  title: string;
  type: string;
  level: string;
  section: string | null;
  description: string | null;
  roles: { role: string; prompt: string }[];
  tasks: string[];
  instructions: string[];
  outputFormat: string;
  exampleOutput: Record<string, unknown> | null;
  version: string;
  owner: { id: number; username: string } | null;
  createdAt: string;
  updatedAt: string;
}

interface ListBody {
  data: PromptBody[];
  meta: { pagination: { page: number; pageSize: number; pageCount: number; total: number } };
}

interface ErrorBody {
  error: { status: number; name: string; message: string; details: { errors?: string[] } };
}

const rtio = {
  roles: [{ role: 'system', prompt: 'You extract purchase order data.' }],
  tasks: ['Find the order number'],
  instructions: ['Use null when absent'],
  outputFormat: 'json',
  exampleOutput: { order_number: 'PO-1' },
};

async function create(auth: string, data: Record<string, unknown>): Promise<PromptBody> {
  const res = await request(app).post('/api/prompts').set('Authorization', auth).send({ data });
  expect(res.status).toBe(201);
  return (res.body as { data: PromptBody }).data;
}

async function list(auth: string, query = ''): Promise<ListBody> {
  const res = await request(app).get(`/api/prompts${query}`).set('Authorization', auth);
  expect(res.status).toBe(200);
  return res.body as ListBody;
}

let alicePrompt: PromptBody;
let bobPrompt: PromptBody;
let adminSystem: PromptBody;

beforeAll(async () => {
  bed = await openTestBed();
  app = buildTestApp(bed, { config: testConfig({ SERVICE_KEY }) });
  actors = await createActors(bed.database);
  alicePrompt = await create(actors.alice.auth, { title: 'Alice PO', type: 'extraction', level: 'user', section: 'Procurement', ...rtio });
  bobPrompt = await create(actors.bob.auth, { title: 'Bob Notes', type: 'summarization', level: 'user', outputFormat: 'text' });
  adminSystem = await create(actors.admin.auth, { title: 'Admin Shared', type: 'classification', level: 'system', section: 'General' });
});

afterAll(async () => {
  await bed?.close();
});

describe('seeded system prompts', () => {
  it('exist from the migrations as ownerless, read-only system prompts', async () => {
    const rows = (await bed.database.query(`SELECT title, type, level, owner_id, output_format FROM prompts WHERE owner_id IS NULL ORDER BY title`)) as {
      title: string;
      type: string;
      level: string;
      owner_id: number | null;
      output_format: string;
    }[];
    expect(rows.map((r) => r.title)).toEqual(SEEDED);
    expect(new Set(rows.map((r) => r.level))).toEqual(new Set(['system']));
    expect(rows.find((r) => r.title === 'Document Classification')?.type).toBe('classification');
    expect(rows.find((r) => r.title === 'Contract Summary')?.type).toBe('summarization');
  });
});

describe('POST /api/prompts', () => {
  it('creates a prompt owned by the caller, answered with the spec’s camelCase names', () => {
    expect(alicePrompt).toMatchObject({
      title: 'Alice PO',
      type: 'extraction',
      level: 'user',
      section: 'Procurement',
      description: null,
      roles: rtio.roles,
      tasks: rtio.tasks,
      instructions: rtio.instructions,
      outputFormat: 'json',
      exampleOutput: { order_number: 'PO-1' },
      version: '1.0.0',
      owner: { id: actors.alice.id, username: 'alice' },
    });
    expect(Date.parse(alicePrompt.createdAt)).not.toBeNaN();
  });

  it('answers the saved prompt both at the top level and under data', async () => {
    const res = await request(app)
      .post('/api/prompts')
      .set('Authorization', actors.bob.auth)
      .send({ data: { title: 'Both shapes', type: 'extraction', level: 'user' } });
    expect(res.status).toBe(201);
    const body = res.body as PromptBody & { data: PromptBody };
    expect(body.data).toMatchObject({ title: 'Both shapes', level: 'user', owner: { id: actors.bob.id, username: 'bob' } });
    expect(body).toEqual({ ...body.data, data: body.data });
    const put = await request(app)
      .put(`/api/prompts/${body.id}`)
      .set('Authorization', actors.bob.auth)
      .send({ data: { title: 'Both shapes v2' } });
    expect(put.status).toBe(200);
    const updated = put.body as PromptBody & { data: PromptBody };
    expect(updated.data).toMatchObject({ id: body.id, title: 'Both shapes v2' });
    expect(updated).toEqual({ ...updated.data, data: updated.data });
    await request(app).delete(`/api/prompts/${body.id}`).set('Authorization', actors.bob.auth).expect(200);
  });

  it('forces level user for a non-admin asking for system, and lets a super administrator create system prompts', async () => {
    const forced = await create(actors.alice.auth, { title: 'Wants system', type: 'extraction', level: 'system' });
    expect(forced.level).toBe('user');
    expect(forced.owner).toEqual({ id: actors.alice.id, username: 'alice' });
    expect(adminSystem.level).toBe('system');
    expect(adminSystem.owner).toEqual({ id: actors.admin.id, username: 'admin' });
    await request(app).delete(`/api/prompts/${forced.id}`).set('Authorization', actors.alice.auth).expect(200);
  });

  it('requires title, type and level (400 with each problem listed)', async () => {
    const res = await request(app)
      .post('/api/prompts')
      .set('Authorization', actors.alice.auth)
      .send({ data: { section: 'x' } });
    expect(res.status).toBe(400);
    const body = res.body as ErrorBody;
    expect(body.error.name).toBe('BadRequestError');
    const errors = body.error.details.errors?.join(' | ') ?? '';
    expect(errors).toMatch(/title/);
    expect(errors).toMatch(/type must be one of extraction, classification, summarization/);
    expect(errors).toMatch(/level must be one of system, user/);
    const noLevel = await request(app)
      .post('/api/prompts')
      .set('Authorization', actors.alice.auth)
      .send({ data: { title: 'T', type: 'extraction' } });
    expect(noLevel.status).toBe(400);
    expect((noLevel.body as ErrorBody).error.details.errors).toEqual(['level must be one of system, user']);
  });

  it('refuses malformed roles, tasks and formats', async () => {
    const bad = await request(app)
      .post('/api/prompts')
      .set('Authorization', actors.alice.auth)
      .send({ data: { title: 'T', type: 'extraction', level: 'user', roles: [{ role: 'assistant', prompt: 'x' }], tasks: [1], outputFormat: 'xml', exampleOutput: [1] } });
    expect(bad.status).toBe(400);
    const errors = (bad.body as ErrorBody).error.details.errors?.join(' | ') ?? '';
    expect(errors).toMatch(/role must be one of system, user/);
    expect(errors).toMatch(/tasks/);
    expect(errors).toMatch(/outputFormat must be one of json, text/);
    expect(errors).toMatch(/exampleOutput must be an object/);
  });

  it('accepts the column spellings output_format and example_output, and a flat body', async () => {
    const res = await request(app)
      .post('/api/prompts')
      .set('Authorization', actors.bob.auth)
      .send({ title: 'Flat', type: 'summarization', level: 'user', output_format: 'text', example_output: { summary: 's' } });
    expect(res.status).toBe(201);
    const body = (res.body as { data: PromptBody }).data;
    expect(body.outputFormat).toBe('text');
    expect(body.exampleOutput).toEqual({ summary: 's' });
    await request(app).delete(`/api/prompts/${body.id}`).set('Authorization', actors.bob.auth).expect(200);
  });
});

describe('GET /api/prompts', () => {
  it('lists system prompts plus the caller’s own, never another user’s', async () => {
    const alice = await list(actors.alice.auth, '?pagination[pageSize]=100');
    const titles = alice.data.map((p) => p.title).sort();
    expect(titles).toEqual(['Admin Shared', 'Alice PO', ...SEEDED].sort());
    expect(alice.meta.pagination).toEqual({ page: 1, pageSize: 100, pageCount: 1, total: 6 });
    const bob = await list(actors.bob.auth, '?pagination[pageSize]=100');
    expect(bob.data.map((p) => p.title).sort()).toEqual(['Admin Shared', 'Bob Notes', ...SEEDED].sort());
    const admin = await list(actors.admin.auth, '?pagination[pageSize]=100');
    expect(admin.data.map((p) => p.title).sort()).toEqual(['Admin Shared', ...SEEDED].sort());
  });

  it('filters by level with filters[level][$eq]', async () => {
    const system = await list(actors.alice.auth, '?filters[level][$eq]=system&pagination[pageSize]=100');
    expect(system.data.map((p) => p.title).sort()).toEqual(['Admin Shared', ...SEEDED].sort());
    const user = await list(actors.alice.auth, '?filters[level][$eq]=user');
    expect(user.data.map((p) => p.id)).toEqual([alicePrompt.id]);
    // Spec 1 names `internal` among the levels of prompts; none is internal, so the filter finds nothing.
    const internal = await list(actors.alice.auth, '?filters[level][$eq]=internal');
    expect(internal).toEqual({ data: [], meta: { pagination: { page: 1, pageSize: 25, pageCount: 0, total: 0 } } });
    const bad = await request(app).get('/api/prompts?filters[level][$eq]=shared').set('Authorization', actors.alice.auth);
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).error.details.errors).toEqual(['filters[level][$eq]: expected one of system, user, internal, got "shared"']);
  });

  it('sorts, pages and filters other fields, with every prompt’s owner with or without populate', async () => {
    const sorted = await list(actors.alice.auth, '?sort=title:asc&pagination[pageSize]=2&pagination[page]=2');
    expect(sorted.data.map((p) => p.title)).toEqual(['Contract Summary', 'Document Classification']);
    expect(sorted.meta.pagination).toEqual({ page: 2, pageSize: 2, pageCount: 3, total: 6 });
    expect(sorted.data.map((p) => p.owner)).toEqual([null, null]);
    const own = await list(actors.alice.auth, '?filters[level][$eq]=user');
    expect(own.data.map((p) => p.owner)).toEqual([{ id: actors.alice.id, username: 'alice' }]);
    const typed = await list(actors.alice.auth, '?filters[type][$eq]=extraction&filters[title][$containsi]=invoice');
    expect(typed.data.map((p) => p.title)).toEqual(['Invoice Extraction']);
    const populated = await list(actors.alice.auth, '?populate=owner&filters[level][$eq]=user');
    expect(populated.data[0]?.owner).toEqual({ id: actors.alice.id, username: 'alice' });
    const seeded = await list(actors.alice.auth, '?populate=*&filters[title][$eq]=Receipt Extraction');
    expect(seeded.data[0]?.owner).toBeNull();
  });
});

describe('GET, PUT and DELETE /api/prompts/{id}', () => {
  it('reads system prompts and one’s own; another user’s prompt is 404', async () => {
    const own = await request(app).get(`/api/prompts/${alicePrompt.id}`).set('Authorization', actors.alice.auth);
    expect(own.status).toBe(200);
    expect((own.body as { data: PromptBody }).data.owner).toEqual({ id: actors.alice.id, username: 'alice' });
    expect((await request(app).get(`/api/prompts/${adminSystem.id}`).set('Authorization', actors.bob.auth)).status).toBe(200);
    const other = await request(app).get(`/api/prompts/${alicePrompt.id}`).set('Authorization', actors.bob.auth);
    expect(other.status).toBe(404);
    expect((other.body as ErrorBody).error).toMatchObject({ name: 'NotFoundError', message: 'Prompt not found' });
    expect((await request(app).get('/api/prompts/999999').set('Authorization', actors.alice.auth)).status).toBe(404);
    expect((await request(app).get('/api/prompts/abc').set('Authorization', actors.alice.auth)).status).toBe(404);
    expect((await request(app).get(`/api/prompts/${alicePrompt.id}`)).status).toBe(401);
  });

  it('updates one’s own prompt, ignoring a non-admin’s level', async () => {
    const res = await request(app)
      .put(`/api/prompts/${alicePrompt.id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { title: 'Alice PO v2', tasks: ['Find the order number', 'Find the buyer'], level: 'system', version: '1.1.0', description: 'POs' } });
    expect(res.status).toBe(200);
    expect((res.body as { data: PromptBody }).data).toMatchObject({
      id: alicePrompt.id,
      title: 'Alice PO v2',
      tasks: ['Find the order number', 'Find the buyer'],
      level: 'user',
      version: '1.1.0',
      description: 'POs',
      roles: rtio.roles,
      exampleOutput: { order_number: 'PO-1' },
    });
    const cleared = await request(app)
      .put(`/api/prompts/${alicePrompt.id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { exampleOutput: null, section: null } });
    expect((cleared.body as { data: PromptBody }).data).toMatchObject({ exampleOutput: null, section: null, title: 'Alice PO v2' });
  });

  it('keeps system prompts read-only for users (403) and others’ prompts hidden (404)', async () => {
    const put = await request(app)
      .put(`/api/prompts/${adminSystem.id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { title: 'Hijack' } });
    expect(put.status).toBe(403);
    expect((put.body as ErrorBody).error.name).toBe('ForbiddenError');
    expect((await request(app).delete(`/api/prompts/${adminSystem.id}`).set('Authorization', actors.alice.auth)).status).toBe(403);
    expect(
      (
        await request(app)
          .put(`/api/prompts/${bobPrompt.id}`)
          .set('Authorization', actors.alice.auth)
          .send({ data: { title: 'x' } })
      ).status,
    ).toBe(404);
    expect((await request(app).delete(`/api/prompts/${bobPrompt.id}`).set('Authorization', actors.alice.auth)).status).toBe(404);
    const still = await request(app).get(`/api/prompts/${adminSystem.id}`).set('Authorization', actors.alice.auth);
    expect((still.body as { data: PromptBody }).data.title).toBe('Admin Shared');
  });

  it('lets a super administrator change a system prompt, and refuses invalid changes', async () => {
    const res = await request(app)
      .put(`/api/prompts/${adminSystem.id}`)
      .set('Authorization', actors.admin.auth)
      .send({ data: { description: 'Shared by admin' } });
    expect(res.status).toBe(200);
    expect((res.body as { data: PromptBody }).data).toMatchObject({ description: 'Shared by admin', level: 'system' });
    const bad = await request(app)
      .put(`/api/prompts/${adminSystem.id}`)
      .set('Authorization', actors.admin.auth)
      .send({ data: { type: 'poem' } });
    expect(bad.status).toBe(400);
  });

  it('refuses null for a field that cannot be empty, and a blank title, with 400 and no change', async () => {
    const before = (await request(app).get(`/api/prompts/${bobPrompt.id}`).set('Authorization', actors.bob.auth).expect(200)).body as { data: PromptBody };
    for (const field of ['title', 'type', 'level', 'roles', 'tasks', 'instructions', 'outputFormat', 'version']) {
      const res = await request(app)
        .put(`/api/prompts/${bobPrompt.id}`)
        .set('Authorization', actors.bob.auth)
        .send({ data: { [field]: null, description: 'changed' } });
      expect([field, res.status]).toEqual([field, 400]);
      const error = (res.body as ErrorBody).error;
      expect(error.name).toBe('BadRequestError');
      expect(error.details.errors?.join(' | ')).toContain(field);
    }
    const blank = await request(app)
      .put(`/api/prompts/${bobPrompt.id}`)
      .set('Authorization', actors.bob.auth)
      .send({ data: { title: '   ' } });
    expect(blank.status).toBe(400);
    expect((blank.body as ErrorBody).error.details.errors).toEqual(['title must not be blank']);
    const after = (await request(app).get(`/api/prompts/${bobPrompt.id}`).set('Authorization', actors.bob.auth).expect(200)).body as { data: PromptBody };
    expect(after).toEqual(before);

    const createBlank = await request(app)
      .post('/api/prompts')
      .set('Authorization', actors.bob.auth)
      .send({ data: { title: ' \t ', type: 'extraction', level: 'user' } });
    expect(createBlank.status).toBe(400);
    expect((createBlank.body as ErrorBody).error.details.errors).toEqual(['title must not be blank']);
    const createNullTasks = await request(app)
      .post('/api/prompts')
      .set('Authorization', actors.bob.auth)
      .send({ data: { title: 'T', type: 'extraction', level: 'user', tasks: null } });
    expect(createNullTasks.status).toBe(400);
    expect((await list(actors.bob.auth, '?filters[level][$eq]=user')).data.map((p) => p.id)).toEqual([bobPrompt.id]);
  });

  it('deletes one’s own prompt', async () => {
    const p = await create(actors.bob.auth, { title: 'Short-lived', type: 'extraction', level: 'user' });
    const res = await request(app).delete(`/api/prompts/${p.id}`).set('Authorization', actors.bob.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: p.id } });
    expect((await request(app).get(`/api/prompts/${p.id}`).set('Authorization', actors.bob.auth)).status).toBe(404);
  });
});

describe('GET /api/internal/prompts', () => {
  it('answers a user’s visible prompts to services, optionally of one type', async () => {
    const res = await request(app).get(`/api/internal/prompts?user_id=${actors.bob.id}`).set('X-Service-Key', SERVICE_KEY);
    expect(res.status).toBe(200);
    const data = (res.body as { data: PromptBody[] }).data;
    expect(data.map((p) => p.title).sort()).toEqual(['Admin Shared', 'Bob Notes', ...SEEDED].sort());
    expect(data.find((p) => p.title === 'Bob Notes')?.owner).toEqual({ id: actors.bob.id, username: 'bob' });
    const typed = await request(app).get(`/api/internal/prompts?user_id=${actors.alice.id}&type=extraction`).set('X-Service-Key', SERVICE_KEY);
    expect((typed.body as { data: PromptBody[] }).data.map((p) => p.title).sort()).toEqual(['Alice PO v2', 'Invoice Extraction', 'Receipt Extraction']);
  });

  it('needs service credentials and a user_id', async () => {
    expect((await request(app).get(`/api/internal/prompts?user_id=${actors.bob.id}`)).status).toBe(401);
    expect((await request(app).get(`/api/internal/prompts?user_id=${actors.bob.id}`).set('Authorization', actors.bob.auth)).status).toBe(401);
    expect((await request(app).get(`/api/internal/prompts?user_id=${actors.bob.id}`).set('X-Service-Key', 'wrong')).status).toBe(401);
    expect((await request(app).get('/api/internal/prompts').set('X-Service-Key', SERVICE_KEY)).status).toBe(400);
    expect((await request(app).get(`/api/internal/prompts?user_id=${actors.bob.id}&type=poem`).set('X-Service-Key', SERVICE_KEY)).status).toBe(400);
  });
});
