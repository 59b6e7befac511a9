import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import request from 'supertest';
import { download } from '../../documents/test-support/documents-kit';
import { buildPdf } from '../../documents/test-support/fixtures';
import { createActivity, type EventBusKit, eventLogs, eventually, KIT_SERVICE_KEY, openEventBusKit, settledLogs } from './test-support/event-bus-kit';

let kit: EventBusKit;
let activityId: number;

interface SourceBody {
  id: number;
  is_active: boolean;
  watch_expiry: string;
  watch_channel_id: string;
  drive_item_id: string;
  drive_item_name: string;
  event_count: number;
  error_message: string | null;
}

async function createSource(folder: string, actor = kit.alice): Promise<SourceBody> {
  const res = await request(kit.app).post('/api/event-bus/sources').set('authorization', actor.auth).send({ source_type: 'cloud_drive', folder_id: folder, folder_name: folder });
  expect(res.status).toBe(201);
  return (res.body as { data: SourceBody }).data;
}

async function subscribe(sourceId: number, body: Record<string, unknown> = {}): Promise<{ id: number; trigger_count: number }> {
  const res = await request(kit.app)
    .post('/api/event-subscriptions')
    .set('authorization', kit.alice.auth)
    .send({ data: { name: 'PDFs', event_source: sourceId, activity: activityId, event_types: ['file_created', 'file_modified'], filter: { name: '*.pdf' }, ...body } });
  expect(res.status).toBe(201);
  return (res.body as { data: { id: number; trigger_count: number } }).data;
}

function inbox(folder: string): string {
  return path.join(kit.driveRoot, String(kit.alice.id), folder);
}

async function count(table: string): Promise<number> {
  return ((await kit.bed.database.query(`SELECT count(*)::int AS n FROM ${table}`)) as { n: number }[])[0]!.n;
}

beforeAll(async () => {
  kit = await openEventBusKit();
  activityId = await createActivity(kit, kit.alice);
});

afterAll(async () => {
  await kit?.close();
});

describe('the drive grant with the local provider', () => {
  it('is always connected, and answers 401 without a token', async () => {
    const res = await request(kit.app).get('/api/cloud/oauth/status').set('authorization', kit.alice.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ connected: true, provider: 'local' });
    expect((await request(kit.app).get('/api/cloud/oauth/status')).status).toBe(401);
    expect((await request(kit.app).get('/api/cloud/oauth/connect').set('authorization', kit.alice.auth)).body).toEqual({ connected: true });
  });
});

describe('event sources (spec 2.16, 3.6, 4.10)', () => {
  it('creates an active source on a folder (created when missing) with a watch of at most 24 hours', async () => {
    const before = Date.now();
    const source = await createSource('inbox-create');
    expect(source).toMatchObject({ is_active: true, drive_item_id: 'inbox-create', drive_item_name: 'inbox-create', event_count: 0, error_message: null });
    const expiry = Date.parse(source.watch_expiry);
    expect(expiry).toBeGreaterThan(before + 23 * 3600_000);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
    expect((await stat(inbox('inbox-create'))).isDirectory()).toBe(true);
    const list = await request(kit.app).get('/api/event-sources').set('authorization', kit.alice.auth);
    expect((list.body as { data: { id: number }[] }).data.map((s) => s.id)).toContain(source.id);
    expect(JSON.stringify(list.body)).not.toMatch(/watch_channel_token/);
  });

  it('refuses a path out of the drive, a file type or an unknown source type with 400, storing nothing', async () => {
    const before = await count('event_sources');
    for (const body of [
      { source_type: 'cloud_drive', folder_id: '../escape' },
      { source_type: 'cloud_drive', folder_id: '/etc' },
      { source_type: 'cloud_drive', drive_item_id: 'x', drive_item_type: 'file' },
      { source_type: 'slack' },
      { source_type: 'cloud_drive' },
    ]) {
      const res = await request(kit.app).post('/api/event-sources').set('authorization', kit.alice.auth).send(body);
      expect(res.status).toBe(400);
      expect((res.body as { error: { name: string; details: { errors: string[] } } }).error).toMatchObject({ name: 'BadRequestError', details: { errors: [expect.any(String)] } });
    }
    expect(await count('event_sources')).toBe(before);
  });

  it('keeps sources, subscriptions and logs to their owner: bob gets 404 and cannot bind them', async () => {
    const source = await createSource('inbox-private');
    expect((await request(kit.app).get(`/api/event-sources/${source.id}`).set('authorization', kit.bob.auth)).status).toBe(404);
    expect((await request(kit.app).post(`/api/event-bus/sources/${source.id}/activate`).set('authorization', kit.bob.auth)).status).toBe(404);
    expect((await request(kit.app).get(`/api/event-bus/logs?source_id=${source.id}`).set('authorization', kit.bob.auth)).status).toBe(404);
    const bobBinds = await request(kit.app)
      .post('/api/event-subscriptions')
      .set('authorization', kit.bob.auth)
      .send({ data: { event_source: source.id, activity: activityId } });
    expect(bobBinds.status).toBe(404);
    const bobActivity = await createActivity(kit, kit.bob);
    const aliceBindsBobs = await request(kit.app)
      .post('/api/event-subscriptions')
      .set('authorization', kit.alice.auth)
      .send({ data: { event_source: source.id, activity: bobActivity } });
    expect(aliceBindsBobs.status).toBe(404);
    const sub = await subscribe(source.id);
    expect((await request(kit.app).get(`/api/event-subscriptions/${sub.id}`).set('authorization', kit.bob.auth)).status).toBe(404);
    expect((await request(kit.app).get('/api/event-subscriptions').set('authorization', kit.bob.auth)).body).toEqual({ data: [] });
  });

  it('refuses a bad subscription filter or event type with 400', async () => {
    const source = await createSource('inbox-filters');
    for (const body of [{ event_types: ['file_deleted'] }, { filter: 'pdf' }, { filter: { name: { $regex: '.*' } } }, { input_mapping: [1] }]) {
      const res = await request(kit.app)
        .post('/api/event-subscriptions')
        .set('authorization', kit.alice.auth)
        .send({ data: { event_source: source.id, activity: activityId, ...body } });
      expect(res.status).toBe(400);
    }
  });
});

describe('a file landing in a watched folder (spec 4.10, 6)', () => {
  it('starts the subscribed workflow once with the file as a document; a .txt file is ignored', async () => {
    const source = await createSource('inbox');
    const sub = await subscribe(source.id, { input_mapping: { origin: 'drive:{{file_name}}' } });
    const jobsBefore = kit.router.jobs.length;
    await writeFile(path.join(inbox('inbox'), 'invoice.pdf'), buildPdf([['Invoice 42']]));
    await writeFile(path.join(inbox('inbox'), 'notes.txt'), 'just notes');
    const logs = await settledLogs(kit, kit.alice, 2, `source_id=${source.id}`);
    const pdf = logs.find((l) => l.payload['file_name'] === 'invoice.pdf')!;
    const txt = logs.find((l) => l.payload['file_name'] === 'notes.txt')!;
    expect(txt).toMatchObject({ status: 'ignored', subscriptions_matched: 0, workflows_triggered: [], event_type: 'file_created' });
    expect(pdf).toMatchObject({ status: 'processed', subscriptions_matched: 1, event_type: 'file_created', event_source: { id: source.id, drive_item_name: 'inbox' } });
    expect(pdf.workflows_triggered).toEqual([{ subscription_id: sub.id, execution_id: expect.any(Number) }]);

    const jobs = kit.router.jobs.slice(jobsBefore);
    expect(jobs).toHaveLength(1);
    const inputs = jobs[0]!.payload['inputs'] as Record<string, unknown>;
    expect(inputs).toMatchObject({
      trigger_type: 'event',
      event_id: pdf.event_id,
      event_source: 'cloud_drive',
      event_type: 'file_created',
      file_id: 'inbox/invoice.pdf',
      file_name: 'invoice.pdf',
      folder_id: 'inbox',
      folder_name: 'inbox',
      file_document_id: expect.any(Number),
      origin: 'drive:invoice.pdf',
    });
    const doc = await request(kit.app)
      .get(`/api/documents/${String(inputs['file_document_id'])}`)
      .set('authorization', kit.alice.auth);
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ data: { mime_type: 'application/pdf', owner: { id: kit.alice.id }, metadata: { source: 'cloud_drive_event' } } });
    const execution = await request(kit.app).get(`/api/workflow-executions/${pdf.workflows_triggered[0]!.execution_id}`).set('authorization', kit.alice.auth);
    expect(execution.status).toBe(200);
    const subAfter = await request(kit.app).get(`/api/event-subscriptions/${sub.id}`).set('authorization', kit.alice.auth);
    expect(subAfter.body).toMatchObject({ data: { trigger_count: 1, last_triggered_at: expect.any(String) } });
    const sourceAfter = await request(kit.app).get(`/api/event-sources/${source.id}`).set('authorization', kit.alice.auth);
    expect(sourceAfter.body).toMatchObject({ data: { event_count: 2, last_event_at: expect.any(String) } });

    // Reading the folder again (a duplicated push, a rescan) emits nothing new and starts nothing.
    await kit.api.eventBus.watching.requestRead(source.id, 'test');
    await kit.api.eventBus.watching.requestRead(source.id, 'test');
    await new Promise((r) => setTimeout(r, 500));
    await kit.api.eventBus.settleNow();
    await kit.api.eventBus.idle();
    expect(await eventLogs(kit, kit.alice, `source_id=${source.id}`)).toHaveLength(2);
    expect(kit.router.jobs.length - jobsBefore).toBe(1);

    // An edit is a new version: file_modified, a second run, and a second document.
    await writeFile(path.join(inbox('inbox'), 'invoice.pdf'), buildPdf([['Invoice 42, corrected']]));
    const after = await settledLogs(kit, kit.alice, 3, `source_id=${source.id}`);
    expect(
      after
        .filter((l) => l.payload['file_name'] === 'invoice.pdf')
        .map((l) => l.event_type)
        .sort(),
    ).toEqual(['file_created', 'file_modified']);
    expect(kit.router.jobs.length - jobsBefore).toBe(2);

    const stats = await request(kit.app).get('/api/event-bus/stats').set('authorization', kit.alice.auth);
    expect(stats.body).toMatchObject({ success: true, data: { active_sources: expect.any(Number), active_subscriptions: expect.any(Number) } });
    expect((stats.body as { data: { recent_events: { status: string }[] } }).data.recent_events.map((e) => e.status)).toEqual(expect.arrayContaining(['processed', 'ignored']));
    const history = await request(kit.app).get('/api/event-logs?pagination[pageSize]=2').set('authorization', kit.alice.auth);
    expect(history.body).toMatchObject({ meta: { pagination: { page: 1, pageSize: 2, total: expect.any(Number) } } });
    expect((history.body as { data: unknown[] }).data).toHaveLength(2);
  });

  it('processes each of a burst of files exactly once', async () => {
    const source = await createSource('burst');
    await subscribe(source.id, { filter: {} });
    const jobsBefore = kit.router.jobs.length;
    const n = 60;
    await Promise.all(Array.from({ length: n }, (_, i) => writeFile(path.join(inbox('burst'), `file-${i}.pdf`), buildPdf([[`File ${i}`]]))));
    const logs = await settledLogs(kit, kit.alice, n, `source_id=${source.id}&limit=100`);
    expect(logs).toHaveLength(n);
    expect(new Set(logs.map((l) => l.payload['file_name'])).size).toBe(n);
    expect(logs.every((l) => l.status === 'processed' && l.workflows_triggered.length === 1)).toBe(true);
    const names = kit.router.jobs.slice(jobsBefore).map((j) => (j.payload['inputs'] as { file_name: string }).file_name);
    expect(names).toHaveLength(n);
    expect(new Set(names).size).toBe(n);
  });

  it('starts one run per (event, subscription) when the same batch is dispatched twice at once, and again after its lease ran out', async () => {
    const source = await createSource('twice');
    // No watch: the events below are the only ones of this source.
    await kit.api.eventBus.watching.stop({ ownerId: kit.alice.id, watchChannelId: source.watch_channel_id, watchResourceId: null });
    const subs = [await subscribe(source.id, { filter: {} }), await subscribe(source.id, { filter: { name: 'twice-*' } })];
    const n = 12;
    const eventIds: string[] = [];
    for (let i = 0; i < n; i += 1) {
      const name = `twice-${i}.pdf`;
      const content = buildPdf([[`Twice ${i}`]]);
      await writeFile(path.join(inbox('twice'), name), content);
      const eventId = `twice-event-${i}-${Date.now()}`;
      eventIds.push(eventId);
      const payload = {
        event_type: 'file_created',
        file_id: `twice/${name}`,
        file_name: name,
        file_mime_type: 'application/pdf',
        file_size: content.length,
        file_version: `v${i}`,
        file_web_link: null,
      };
      await kit.bed.database.query(
        `INSERT INTO event_logs (event_id, owner_id, event_source_id, source_type, event_type, payload, status, received_at) VALUES ($1, $2, $3, 'cloud_drive', 'file_created', $4, 'received', now())`,
        [eventId, kit.alice.id, source.id, JSON.stringify(payload)],
      );
    }
    const jobsBefore = kit.router.jobs.length;
    const { dispatcher } = kit.api.eventBus;
    const runsPerPair = async () =>
      (await kit.bed.database.query(`SELECT inputs->>'event_id' AS event_id, count(*)::int AS n FROM workflow_executions WHERE inputs->>'event_id' = ANY($1) GROUP BY 1`, [eventIds])) as {
        event_id: string;
        n: number;
      }[];

    await Promise.all([dispatcher.dispatchMany(eventIds), dispatcher.dispatchMany([...eventIds].reverse()), dispatcher.dispatchMany(eventIds.slice(0, n / 2))]);
    let rows = await runsPerPair();
    expect(rows).toHaveLength(n);
    expect(rows.every((r) => r.n === subs.length)).toBe(true);
    expect(kit.router.jobs.length - jobsBefore).toBe(n * subs.length);
    const logs = await eventLogs(kit, kit.alice, `source_id=${source.id}&limit=100`);
    expect(logs).toHaveLength(n);
    for (const log of logs) {
      expect(log).toMatchObject({ status: 'processed', subscriptions_matched: 2 });
      expect(log.workflows_triggered.map((t) => t.subscription_id)).toEqual(subs.map((s) => s.id));
    }
    const triggered = new Map(logs.map((l) => [l.event_id, l.workflows_triggered]));

    // As if the processes that held them died before finishing: both replicas take them again at once.
    await kit.bed.database.query(`UPDATE event_logs SET status = 'processing', lease_until = now() - interval '1 second' WHERE event_id = ANY($1)`, [eventIds]);
    await Promise.all([dispatcher.dispatchMany(eventIds), dispatcher.dispatchMany(eventIds)]);
    rows = await runsPerPair();
    expect(rows.every((r) => r.n === subs.length)).toBe(true);
    expect(kit.router.jobs.length - jobsBefore).toBe(n * subs.length);
    const again = await eventLogs(kit, kit.alice, `source_id=${source.id}&limit=100`);
    for (const log of again) {
      expect(log.status).toBe('processed');
      expect(log.workflows_triggered).toEqual(triggered.get(log.event_id));
    }
    for (const sub of subs) {
      const body = (await request(kit.app).get(`/api/event-subscriptions/${sub.id}`).set('authorization', kit.alice.auth)).body as { data: { trigger_count: number } };
      expect(body.data.trigger_count).toBe(n);
    }
    // One document per file version, however many attempts took it.
    const docs = (await kit.bed.database.query(`SELECT count(*)::int AS n FROM documents WHERE metadata->>'source_ref' LIKE $1`, [`${source.id}:twice/%`])) as { n: number }[];
    expect(docs[0]!.n).toBe(n);
  });

  it('ignores a push for an unknown channel or with a wrong token, answering 200 either way', async () => {
    const source = await createSource('pushes');
    await subscribe(source.id, { filter: {} });
    await writeFile(path.join(inbox('pushes'), 'quiet.pdf'), buildPdf([['quiet']]));
    // Stop the local watch so that only pushes could make the file seen.
    await kit.api.eventBus.watching.stop({ ownerId: kit.alice.id, watchChannelId: source.watch_channel_id, watchResourceId: null });
    const unknown = await request(kit.app).post('/api/event-bus/drive-webhook').set({ 'x-goog-channel-id': 'no-such-channel', 'x-goog-resource-state': 'change', 'x-goog-channel-token': 'x' });
    const wrong = await request(kit.app).post('/api/event-bus/drive-webhook').set({ 'x-goog-channel-id': source.watch_channel_id, 'x-goog-resource-state': 'change', 'x-goog-channel-token': 'wrong' });
    expect([unknown.status, wrong.status]).toEqual([200, 200]);
    expect(await kit.api.eventBus.watching.notify({ channelId: source.watch_channel_id, channelToken: 'wrong', resourceId: null, resourceState: 'change', messageNumber: 1 })).toBe(false);
  });
});

describe('watch renewal (spec 8)', () => {
  it('renews a watch expiring within 2 hours with a new channel, and deactivates a source whose renewal fails', async () => {
    const source = await createSource('renew');
    await kit.bed.database.query(`UPDATE event_sources SET watch_expiry = now() + interval '90 minutes' WHERE id = $1`, [source.id]);
    // A row another transaction holds at that instant (a read saving its page token) is skipped until the next tick.
    await eventually('the renewal', async () => ((await kit.api.eventBus.tick()).renewed >= 1 ? true : undefined));
    const after = (await request(kit.app).get(`/api/event-sources/${source.id}`).set('authorization', kit.alice.auth)).body as { data: SourceBody };
    expect(after.data.watch_channel_id).not.toBe(source.watch_channel_id);
    expect(Date.parse(after.data.watch_expiry)).toBeGreaterThan(Date.now() + 23 * 3600_000);

    const broken = await createSource('renew-broken');
    await kit.bed.database.query(`UPDATE event_sources SET watch_expiry = now() + interval '1 minute', drive_item_id = '../outside' WHERE id = $1`, [broken.id]);
    const failed = await eventually('the failed renewal', async () => {
      await kit.api.eventBus.tick();
      const body = (await request(kit.app).get(`/api/event-sources/${broken.id}`).set('authorization', kit.alice.auth)).body as { data: SourceBody };
      return body.data.is_active ? undefined : body;
    });
    // The renewal or a read of the folder may meet the broken path first: either deactivates the source with its reason.
    expect(failed.data).toMatchObject({ is_active: false, error_message: expect.stringMatching(/renewed|must not contain \.\./) });
  });
});

describe('internal routes of cloud_drive_fetch_task', () => {
  const importUrl = (userId: number, name: string) => `/api/internal/documents/import?user_id=${userId}&file_name=${encodeURIComponent(name)}&source=cloud_drive_fetch&source_ref=inbox/${name}`;

  it('stores a raw body (even text/plain) as a document once per Idempotency-Key', async () => {
    const first = await request(kit.app)
      .post(importUrl(kit.alice.id, 'memo.txt'))
      .set('x-service-key', KIT_SERVICE_KEY)
      .set('idempotency-key', 'exec-1:node:memo:v1')
      .set('content-type', 'text/plain')
      .send('hello from the drive');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ document_id: expect.any(Number), mime_type: 'text/plain', file_size: 20, filename: 'memo.txt', file_url: expect.stringContaining('/api/documents/') });
    const again = await request(kit.app)
      .post(importUrl(kit.alice.id, 'memo.txt'))
      .set('x-service-key', KIT_SERVICE_KEY)
      .set('idempotency-key', 'exec-1:node:memo:v1')
      .set('content-type', 'text/plain')
      .send('hello from the drive');
    expect(again.status).toBe(201);
    expect((again.body as { document_id: number }).document_id).toBe((first.body as { document_id: number }).document_id);
    const other = await request(kit.app)
      .post(importUrl(kit.alice.id, 'memo.txt'))
      .set('x-service-key', KIT_SERVICE_KEY)
      .set('idempotency-key', 'exec-2:node:memo:v1')
      .set('content-type', 'text/plain')
      .send('hello from the drive');
    expect((other.body as { document_id: number }).document_id).not.toBe((first.body as { document_id: number }).document_id);
  });

  it('stores a file larger than what an import holds in memory through its spool file, whole', async () => {
    const big = Buffer.from('0123456789abcdef\n'.repeat(96 * 1024), 'utf8');
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const res = await request(kit.app)
      .post(importUrl(kit.alice.id, 'big.txt'))
      .set('x-service-key', KIT_SERVICE_KEY)
      .set('idempotency-key', 'exec-3:node:big:v1')
      .set('content-type', 'text/plain')
      .send(big);
    expect(res.status).toBe(201);
    const { document_id: id, file_size: size } = res.body as { document_id: number; file_size: number };
    expect(size).toBe(big.length);
    const file = await download(kit.app, `/api/documents/${id}/download`, kit.alice);
    expect(file.status).toBe(200);
    expect(Buffer.compare(file.body, big)).toBe(0);
  });

  it('stores a compressed body inflated; refuses a corrupt one with 400 and an unknown coding with 415, storing nothing', async () => {
    const text = 'compressed from the drive\n'.repeat(50);
    for (const [coding, body] of [
      ['gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['br', brotliCompressSync(text)],
    ] as const) {
      const res = await request(kit.app)
        .post(importUrl(kit.alice.id, `packed-${coding}.txt`))
        .set('x-service-key', KIT_SERVICE_KEY)
        .set('content-type', 'text/plain')
        .set('content-encoding', coding)
        .send(body);
      expect(res.status).toBe(201);
      const { document_id: id, file_size: size } = res.body as { document_id: number; file_size: number };
      expect(size).toBe(Buffer.byteLength(text));
      const file = await download(kit.app, `/api/documents/${id}/download`, kit.alice);
      expect(file.body.toString('utf8')).toBe(text);
    }
    const before = await count('documents');
    const corrupt = await request(kit.app)
      .post(importUrl(kit.alice.id, 'corrupt.txt'))
      .set('x-service-key', KIT_SERVICE_KEY)
      .set('content-type', 'text/plain')
      .set('content-encoding', 'gzip')
      .send(Buffer.from('not gzip at all'));
    expect(corrupt.status).toBe(400);
    expect(corrupt.body).toMatchObject({ error: { status: 400, message: 'Request body could not be decompressed' } });
    const unknown = await request(kit.app)
      .post(importUrl(kit.alice.id, 'packed.txt'))
      .set('x-service-key', KIT_SERVICE_KEY)
      .set('content-type', 'text/plain')
      .set('content-encoding', 'compress')
      .send(Buffer.from('xx'));
    expect(unknown.status).toBe(415);
    expect(await count('documents')).toBe(before);
  });

  it('answers 401 without the service key, 404 for an unknown user, 400 for a bad query or content', async () => {
    expect((await request(kit.app).post(importUrl(kit.alice.id, 'a.txt')).set('content-type', 'text/plain').send('x')).status).toBe(401);
    expect((await request(kit.app).post(importUrl(kit.alice.id, 'a.txt')).set('authorization', kit.alice.auth).set('content-type', 'text/plain').send('x')).status).toBe(401);
    expect((await request(kit.app).post(importUrl(999_999, 'a.txt')).set('x-service-key', KIT_SERVICE_KEY).set('content-type', 'text/plain').send('x')).status).toBe(404);
    const bad = await request(kit.app).post('/api/internal/documents/import?user_id=abc&source=nope').set('x-service-key', KIT_SERVICE_KEY).send('x');
    expect(bad.status).toBe(400);
    const exe = await request(kit.app)
      .post(importUrl(kit.alice.id, 'tool.exe'))
      .set('x-service-key', KIT_SERVICE_KEY)
      .set('content-type', 'application/octet-stream')
      .send(Buffer.from([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0]));
    expect(exe.status).toBe(400);
  });

  it('lends no access token with the local provider (404 not_available)', async () => {
    const res = await request(kit.app).post('/api/internal/cloud-drive/access-token').set('x-service-key', KIT_SERVICE_KEY).send({ user_id: kit.alice.id });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'not_available' });
  });
});

it('leaves no spooled import behind', async () => {
  const uploads = path.join(path.dirname(kit.driveRoot), 'uploads');
  await mkdir(uploads, { recursive: true });
  expect((await readdir(uploads)).filter((f) => f.startsWith('import-'))).toEqual([]);
});
