import request from 'supertest';
import type express from 'express';
import { buildTestApp, openTestBed, TestBed } from '../../test-support/test-app';
import { Actors, createActors, sampleDefinition } from '../executions/test-support/actors';

let bed: TestBed;
let app: express.Express;
let actors: Actors;

interface ActivityBody {
  id: number;
  name: string;
  description: string | null;
  workflow_type: string;
  status: string;
  level: string;
  workflow_definition: Record<string, unknown>;
  execution_deadline_seconds: number | null;
  data_shield_policy: Record<string, unknown> | null;
  owner?: { id: number; username: string; email: string } | null;
  createdAt: string;
  updatedAt: string;
}

interface ListBody {
  data: ActivityBody[];
  meta: { pagination: { page: number; pageSize: number; pageCount: number; total: number } };
}

interface ErrorBody {
  error: { status: number; name: string; message: string; details: { errors?: string[] } };
}

async function create(auth: string, data: Record<string, unknown>): Promise<ActivityBody> {
  const res = await request(app).post('/api/activities').set('Authorization', auth).send({ data });
  expect(res.status).toBe(201);
  return (res.body as { data: ActivityBody }).data;
}

/** An ownerless system activity, as a seed would insert it. */
async function insertSystemActivity(name: string): Promise<number> {
  const rows = (await bed.database.query("INSERT INTO activities (name, level, status, workflow_definition) VALUES ($1, 'system', 'published', $2::jsonb) RETURNING id", [
    name,
    JSON.stringify(sampleDefinition()),
  ])) as { id: number }[];
  return rows[0]!.id;
}

beforeAll(async () => {
  bed = await openTestBed();
  app = buildTestApp(bed);
  actors = await createActors(bed.database);
});

afterAll(async () => {
  await bed?.close();
});

describe('POST /api/activities', () => {
  it('creates a draft user-level activity owned by the caller, with the owner serialised', async () => {
    const res = await request(app)
      .post('/api/activities')
      .set('Authorization', actors.alice.auth)
      .send({ data: { name: 'Invoice intake', description: 'Reads invoices', workflow_type: 'document_processing', workflow_definition: sampleDefinition() } });
    expect(res.status).toBe(201);
    const a = (res.body as { data: ActivityBody }).data;
    expect(a).toMatchObject({
      name: 'Invoice intake',
      description: 'Reads invoices',
      workflow_type: 'document_processing',
      status: 'draft',
      level: 'user',
      execution_deadline_seconds: null,
      data_shield_policy: null,
      owner: { id: actors.alice.id, username: 'alice', email: 'alice@docflow.test' },
    });
    expect(a.workflow_definition).toEqual(sampleDefinition());
    expect(Date.parse(a.createdAt)).not.toBeNaN();
  });

  it('requires workflow_definition and a name (400 with details.errors)', async () => {
    const res = await request(app)
      .post('/api/activities')
      .set('Authorization', actors.alice.auth)
      .send({ data: { name: 'No definition' } });
    expect(res.status).toBe(400);
    const body = res.body as ErrorBody;
    expect(body.error.name).toBe('BadRequestError');
    expect(body.error.details.errors).toEqual(expect.arrayContaining([expect.stringContaining('workflow_definition')]));

    const noName = await request(app)
      .post('/api/activities')
      .set('Authorization', actors.alice.auth)
      .send({ data: { workflow_definition: {} } });
    expect(noName.status).toBe(400);
    expect((noName.body as ErrorBody).error.details.errors).toEqual(expect.arrayContaining([expect.stringContaining('name')]));
  });

  it('refuses a blank name on create, update and instantiate (400), creating and changing nothing', async () => {
    const before = await bed.database.query('SELECT count(*)::int AS n FROM activities');
    const created = await request(app)
      .post('/api/activities')
      .set('Authorization', actors.alice.auth)
      .send({ data: { name: '   ', workflow_definition: {} } });
    expect(created.status).toBe(400);
    expect((created.body as ErrorBody).error).toMatchObject({ status: 400, name: 'BadRequestError', details: { errors: ['name must not be blank'] } });

    const a = await create(actors.alice.auth, { name: 'Named', workflow_definition: {} });
    const updated = await request(app)
      .put(`/api/activities/${a.id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { name: ' \t ' } });
    expect(updated.status).toBe(400);
    const copied = await request(app).post(`/api/activities/${a.id}/instantiate`).set('Authorization', actors.alice.auth).send({ name: '  ' });
    expect(copied.status).toBe(400);
    expect(await bed.database.query('SELECT count(*)::int AS n FROM activities')).toEqual([{ n: (before as { n: number }[])[0]!.n + 1 }]);
    const after = await request(app).get(`/api/activities/${a.id}`).set('Authorization', actors.alice.auth);
    expect((after.body as { data: ActivityBody }).data.name).toBe('Named');
  });

  it('accepts both status vocabularies and refuses other values', async () => {
    for (const status of ['active', 'paused', 'archived', 'published']) {
      const a = await create(actors.alice.auth, { name: `S ${status}`, status, workflow_definition: {} });
      expect(a.status).toBe(status);
    }
    const res = await request(app)
      .post('/api/activities')
      .set('Authorization', actors.alice.auth)
      .send({ data: { name: 'x', status: 'live', workflow_definition: {} } });
    expect(res.status).toBe(400);
  });

  it('forces level user for non-admins, lets a super administrator create system items', async () => {
    const mine = await create(actors.bob.auth, { name: 'Bob tries system', level: 'system', workflow_definition: {} });
    expect(mine.level).toBe('user');
    const sys = await create(actors.admin.auth, { name: 'Admin system flow', level: 'system', workflow_definition: {}, execution_deadline_seconds: 600 });
    expect(sys).toMatchObject({ level: 'system', execution_deadline_seconds: 600, owner: { id: actors.admin.id } });
  });

  it('needs a token', async () => {
    const res = await request(app)
      .post('/api/activities')
      .send({ data: { name: 'x', workflow_definition: {} } });
    expect(res.status).toBe(401);
  });
});

describe('visibility and list conventions', () => {
  let aliceOwn: ActivityBody;
  let bobOwn: ActivityBody;
  let systemId: number;

  beforeAll(async () => {
    aliceOwn = await create(actors.alice.auth, { name: 'Alpha contract review', workflow_definition: sampleDefinition() });
    bobOwn = await create(actors.bob.auth, { name: 'Bob private flow', workflow_definition: {} });
    systemId = await insertSystemActivity('Alpha system pack');
  });

  it('lists system items plus the caller’s own, never another user’s', async () => {
    const res = await request(app).get('/api/activities?pagination[pageSize]=100').set('Authorization', actors.alice.auth);
    expect(res.status).toBe(200);
    const body = res.body as ListBody;
    const ids = body.data.map((a) => a.id);
    expect(ids).toContain(aliceOwn.id);
    expect(ids).toContain(systemId);
    expect(ids).not.toContain(bobOwn.id);
    expect(body.data.every((a) => a.level === 'system' || a.owner === undefined)).toBe(true);
    expect(body.meta.pagination).toMatchObject({ page: 1, pageSize: 100, total: ids.length });
  });

  it('filters, sorts, paginates and populates the owner', async () => {
    const res = await request(app).get('/api/activities?filters[name][$contains]=Alpha&sort=name:asc&populate=owner').set('Authorization', actors.alice.auth);
    expect(res.status).toBe(200);
    const body = res.body as ListBody;
    expect(body.data.map((a) => a.name)).toEqual(['Alpha contract review', 'Alpha system pack']);
    expect(body.data[0]!.owner).toEqual({ id: actors.alice.id, username: 'alice', email: 'alice@docflow.test' });
    expect(body.data[1]!.owner).toBeNull();

    const sys = await request(app).get('/api/activities?filters[level][$eq]=system').set('Authorization', actors.bob.auth);
    expect((sys.body as ListBody).data.every((a) => a.level === 'system')).toBe(true);
    expect((sys.body as ListBody).data.map((a) => a.id)).toContain(systemId);

    const page = await request(app).get('/api/activities?pagination[page]=2&pagination[pageSize]=1&sort=id:asc').set('Authorization', actors.alice.auth);
    const pageBody = page.body as ListBody;
    expect(pageBody.data).toHaveLength(1);
    expect(pageBody.meta.pagination.page).toBe(2);
    expect(pageBody.meta.pagination.pageCount).toBe(pageBody.meta.pagination.total);

    const bad = await request(app).get('/api/activities?filters[secret][$eq]=1').set('Authorization', actors.alice.auth);
    expect(bad.status).toBe(400);
  });

  it('answers 404 Activity not found for another user’s activity on read, update, delete and instantiate', async () => {
    const read = await request(app).get(`/api/activities/${bobOwn.id}`).set('Authorization', actors.alice.auth);
    expect(read.status).toBe(404);
    expect((read.body as ErrorBody).error.message).toBe('Activity not found');
    const put = await request(app)
      .put(`/api/activities/${bobOwn.id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { name: 'stolen' } });
    expect(put.status).toBe(404);
    const del = await request(app).delete(`/api/activities/${bobOwn.id}`).set('Authorization', actors.alice.auth);
    expect(del.status).toBe(404);
    const inst = await request(app).post(`/api/activities/${bobOwn.id}/instantiate`).set('Authorization', actors.alice.auth).send({});
    expect(inst.status).toBe(404);
    expect((await request(app).get('/api/activities/999999').set('Authorization', actors.alice.auth)).status).toBe(404);
    expect((await request(app).get('/api/activities/abc').set('Authorization', actors.alice.auth)).status).toBe(404);
    // Unchanged.
    const still = await request(app).get(`/api/activities/${bobOwn.id}`).set('Authorization', actors.bob.auth);
    expect((still.body as { data: ActivityBody }).data.name).toBe('Bob private flow');
  });

  it('lets everyone read a system activity, but only a super administrator change it (403 for others)', async () => {
    const read = await request(app).get(`/api/activities/${systemId}`).set('Authorization', actors.bob.auth);
    expect(read.status).toBe(200);
    expect((read.body as { data: ActivityBody }).data).toMatchObject({ level: 'system', owner: null });
    const put = await request(app)
      .put(`/api/activities/${systemId}`)
      .set('Authorization', actors.bob.auth)
      .send({ data: { name: 'mine now' } });
    expect(put.status).toBe(403);
    const del = await request(app).delete(`/api/activities/${systemId}`).set('Authorization', actors.bob.auth);
    expect(del.status).toBe(403);
    const adminPut = await request(app)
      .put(`/api/activities/${systemId}`)
      .set('Authorization', actors.admin.auth)
      .send({ data: { status: 'archived' } });
    expect(adminPut.status).toBe(200);
    expect((adminPut.body as { data: ActivityBody }).data.status).toBe('archived');
  });

  it('lets a super administrator read any activity by id', async () => {
    const res = await request(app).get(`/api/activities/${bobOwn.id}`).set('Authorization', actors.admin.auth);
    expect(res.status).toBe(200);
  });
});

describe('PUT and DELETE /api/activities/{id}', () => {
  it('updates the owner’s fields, ignores a non-admin level, and validates', async () => {
    const a = await create(actors.alice.auth, { name: 'Editable', workflow_definition: {}, execution_deadline_seconds: 60 });
    const res = await request(app)
      .put(`/api/activities/${a.id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { name: 'Edited', status: 'published', level: 'system', description: 'now described', execution_deadline_seconds: null, workflow_definition: sampleDefinition() } });
    expect(res.status).toBe(200);
    const updated = (res.body as { data: ActivityBody }).data;
    expect(updated).toMatchObject({ id: a.id, name: 'Edited', status: 'published', level: 'user', description: 'now described', execution_deadline_seconds: null });
    expect(updated.workflow_definition).toEqual(sampleDefinition());
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(a.updatedAt));

    const bad = await request(app)
      .put(`/api/activities/${a.id}`)
      .set('Authorization', actors.alice.auth)
      .send({ data: { status: 'nope', name: '' } });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).error.details.errors?.length).toBeGreaterThanOrEqual(2);
  });

  it('refuses null for a field that cannot be empty with 400, changing nothing', async () => {
    const a = await create(actors.alice.auth, { name: 'Kept', workflow_definition: sampleDefinition(), status: 'active' });
    for (const field of ['name', 'workflow_definition', 'status', 'workflow_type', 'level']) {
      const res = await request(app)
        .put(`/api/activities/${a.id}`)
        .set('Authorization', actors.alice.auth)
        .send({ data: { [field]: null } });
      expect(res.status).toBe(400);
      const error = (res.body as ErrorBody).error;
      expect(error).toMatchObject({ status: 400, name: 'BadRequestError' });
      expect(error.details.errors!.join(' ')).toContain(field);
    }
    const after = await request(app).get(`/api/activities/${a.id}`).set('Authorization', actors.alice.auth);
    expect((after.body as { data: ActivityBody }).data).toMatchObject({ name: 'Kept', status: 'active', workflow_type: a.workflow_type, level: 'user', updatedAt: a.updatedAt });
  });

  it('deletes and then answers 404', async () => {
    const a = await create(actors.alice.auth, { name: 'Doomed', workflow_definition: {} });
    const res = await request(app).delete(`/api/activities/${a.id}`).set('Authorization', actors.alice.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { id: a.id } });
    expect((await request(app).get(`/api/activities/${a.id}`).set('Authorization', actors.alice.auth)).status).toBe(404);
  });
});

describe('POST /api/activities/{id}/instantiate', () => {
  it('copies a system activity into a user-level draft owned by the caller, named "<name> (Copy)"', async () => {
    const sysId = await insertSystemActivity('Onboarding pack');
    const res = await request(app).post(`/api/activities/${sysId}/instantiate`).set('Authorization', actors.bob.auth).send({});
    expect(res.status).toBe(200);
    const body = res.body as { data: { workflow_id: number; workflow: ActivityBody } };
    expect(body.data.workflow_id).not.toBe(sysId);
    expect(body.data.workflow).toMatchObject({
      id: body.data.workflow_id,
      name: 'Onboarding pack (Copy)',
      level: 'user',
      status: 'draft',
      owner: { id: actors.bob.id, username: 'bob' },
    });
    expect(body.data.workflow.workflow_definition).toEqual(sampleDefinition());
    const list = await request(app).get('/api/activities?pagination[pageSize]=100').set('Authorization', actors.bob.auth);
    expect((list.body as ListBody).data.map((a) => a.id)).toContain(body.data.workflow_id);
  });

  it('takes a name and description', async () => {
    const a = await create(actors.alice.auth, { name: 'Source', description: 'original', workflow_definition: {} });
    const res = await request(app).post(`/api/activities/${a.id}/instantiate`).set('Authorization', actors.alice.auth).send({ name: 'My variant', description: 'changed' });
    expect(res.status).toBe(200);
    expect((res.body as { data: { workflow: ActivityBody } }).data.workflow).toMatchObject({ name: 'My variant', description: 'changed', owner: { id: actors.alice.id } });
  });
});
