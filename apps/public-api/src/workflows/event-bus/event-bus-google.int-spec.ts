import request from 'supertest';
import { FakeGoogleDrive, type FakeFile } from '@docflow/testing';
import { buildPdf } from '../../documents/test-support/fixtures';
import { createActivity, eventually, type EventBusKit, eventLogs, KIT_SERVICE_KEY, openEventBusKit, settledLogs } from './test-support/event-bus-kit';

let fake: FakeGoogleDrive;
let kit: EventBusKit;
let activityId: number;
let folder: FakeFile;

interface SourceBody {
  id: number;
  is_active: boolean;
  error_message: string | null;
  watch_channel_id: string | null;
  watch_expiry: string | null;
}

async function connect(actor = kit.alice): Promise<void> {
  const start = await request(kit.app).get('/api/cloud/oauth/connect').set('authorization', actor.auth);
  expect(start.status).toBe(200);
  const url = new URL((start.body as { authorization_url: string }).authorization_url);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  const consent = await fetch(url, { redirect: 'manual' });
  const back = new URL(consent.headers.get('location')!);
  const done = await request(kit.app)
    .get(`/api/cloud/oauth/callback?code=${encodeURIComponent(back.searchParams.get('code')!)}&state=${encodeURIComponent(back.searchParams.get('state')!)}`)
    .set('authorization', actor.auth);
  expect(done.status).toBe(200);
}

async function getSource(id: number): Promise<SourceBody> {
  return ((await request(kit.app).get(`/api/event-sources/${id}`).set('authorization', kit.alice.auth)).body as { data: SourceBody }).data;
}

async function activeSource(): Promise<SourceBody> {
  const created = await request(kit.app).post('/api/event-bus/sources').set('authorization', kit.alice.auth).send({ source_type: 'cloud_drive', folder_id: folder.id, folder_name: 'Scans' });
  expect(created.status).toBe(201);
  const source = (created.body as { data: SourceBody }).data;
  const activated = await request(kit.app).post(`/api/event-bus/sources/${source.id}/activate`).set('authorization', kit.alice.auth);
  expect(activated.status).toBe(200);
  expect(activated.body).toMatchObject({ data: { is_active: true } });
  const sub = await request(kit.app)
    .post('/api/event-subscriptions')
    .set('authorization', kit.alice.auth)
    .send({ data: { event_source: source.id, activity: activityId, filter: { mime_type: 'application/pdf' } } });
  expect(sub.status).toBe(201);
  return getSource(source.id);
}

beforeAll(async () => {
  fake = await FakeGoogleDrive.start();
  kit = await openEventBusKit(
    {
      CLOUD_DRIVE_PROVIDER: 'google',
      CLOUD_DRIVE_API_URL: fake.apiUrl,
      CLOUD_DRIVE_OAUTH_AUTH_URL: fake.authUrl,
      CLOUD_DRIVE_OAUTH_TOKEN_URL: fake.tokenUrl,
      CLOUD_DRIVE_CLIENT_ID: fake.clientId,
      CLOUD_DRIVE_CLIENT_SECRET: 'docflow-test-secret',
    },
    {},
    { listen: true },
  );
  activityId = await createActivity(kit, kit.alice);
  folder = fake.addFolder('Scans');
});

afterAll(async () => {
  await kit?.close();
  await fake?.stop();
});

describe('the Google grant (spec 5, 4.10)', () => {
  it('is not connected at first, and a drive source needs it (400, nothing stored)', async () => {
    expect((await request(kit.app).get('/api/cloud/oauth/status').set('authorization', kit.bob.auth)).body).toMatchObject({ connected: false, provider: 'google' });
    const res = await request(kit.app).post('/api/event-bus/sources').set('authorization', kit.bob.auth).send({ source_type: 'cloud_drive', folder_id: folder.id });
    expect(res.status).toBe(400);
    expect(((await kit.bed.database.query('SELECT count(*)::int AS n FROM event_sources')) as { n: number }[])[0]!.n).toBe(0);
  });

  it('connects with PKCE and a state bound to the user: bob cannot finish alice’s flow; tokens are stored sealed', async () => {
    const start = await request(kit.app).get('/api/cloud/oauth/connect').set('authorization', kit.alice.auth);
    const url = new URL((start.body as { authorization_url: string }).authorization_url);
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    const stolen = await request(kit.app)
      .get(`/api/cloud/oauth/callback?code=${back.searchParams.get('code')}&state=${encodeURIComponent(back.searchParams.get('state')!)}`)
      .set('authorization', kit.bob.auth);
    expect(stolen.status).toBe(400);
    expect((await request(kit.app).get('/api/cloud/oauth/status').set('authorization', kit.bob.auth)).body).toMatchObject({ connected: false });
    await connect(kit.alice);
    expect((await request(kit.app).get('/api/cloud/oauth/status').set('authorization', kit.alice.auth)).body).toMatchObject({ connected: true });
    const rows = (await kit.bed.database.query('SELECT sealed_tokens FROM cloud_drive_grants')) as { sealed_tokens: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.sealed_tokens).toMatch(/^v2\./);
    expect(rows[0]!.sealed_tokens).not.toMatch(/refresh|access/i);
  });
});

describe('a Google Drive source', () => {
  it('is created inactive without a public HTTPS address (3.6); activate registers the channel and a push starts the workflow once', async () => {
    const created = await request(kit.app)
      .post('/api/event-sources')
      .set('authorization', kit.alice.auth)
      .send({ name: 'Scans', source_type: 'cloud_drive', drive_item_id: folder.id, drive_item_type: 'folder' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ data: { is_active: false, error_message: expect.stringContaining('HTTPS'), watch_channel_id: null } });
    const source = await activeSource();
    expect(source.watch_channel_id).toEqual(expect.any(String));
    expect(fake.drive.liveChannels().map((c) => c.id)).toContain(source.watch_channel_id);

    const jobsBefore = kit.router.jobs.length;
    const pushesBefore = fake.pushes.length;
    fake.addFile('scan-1.pdf', buildPdf([['Scan one']]), { parentId: folder.id, mimeType: 'application/pdf' });
    fake.addFile('readme.txt', 'not a pdf', { parentId: folder.id, mimeType: 'text/plain' });
    await fake.waitForPushes(pushesBefore + 1);
    const logs = await settledLogs(kit, kit.alice, 2, `source_id=${source.id}`);
    expect(logs.map((l) => [l.payload['file_name'], l.status]).sort()).toEqual([
      ['readme.txt', 'ignored'],
      ['scan-1.pdf', 'processed'],
    ]);
    const jobs = kit.router.jobs.slice(jobsBefore);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.payload['inputs']).toMatchObject({
      trigger_type: 'event',
      event_source: 'cloud_drive',
      file_name: 'scan-1.pdf',
      folder_id: folder.id,
      folder_name: 'Scans',
      file_web_link: expect.any(String),
      file_document_id: expect.any(Number),
    });

    // The same push delivered again gives no second event.
    const push = fake.pushes[fake.pushes.length - 1]!;
    const replay = await request(kit.app).post('/api/event-bus/drive-webhook').set(push.headers);
    expect(replay.status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    await kit.api.eventBus.settleNow();
    await kit.api.eventBus.idle();
    expect(await eventLogs(kit, kit.alice, `source_id=${source.id}`)).toHaveLength(2);
    expect(kit.router.jobs.length - jobsBefore).toBe(1);
    // Deleting the source stops its channel.
    expect((await request(kit.app).delete(`/api/event-sources/${source.id}`).set('authorization', kit.alice.auth)).status).toBe(200);
    expect(fake.drive.liveChannels().map((c) => c.id)).not.toContain(source.watch_channel_id);
  });

  it('backs off through a drive outage and resumes from the saved page token; an expired page token resyncs', async () => {
    const lists = () => fake.requestsTo('/drive/v3/changes').filter((r) => r.path === '/drive/v3/changes').length;
    const listsBefore = lists();
    const source = await activeSource();
    // Activation reads once (and the channel's sync push may read again); the outage starts once reads are quiet.
    await eventually('the first read', async () => (lists() > listsBefore ? true : undefined));
    let seen = -1;
    await eventually('reads to be quiet', async () => {
      const now = lists();
      const quiet = now === seen;
      seen = now;
      await new Promise((r) => setTimeout(r, 500));
      return quiet ? true : undefined;
    });
    await kit.api.eventBus.idle();
    const jobsBefore = kit.router.jobs.length;
    fake.fail({ status: 503, retryAfter: 1, times: 4, pathPrefix: '/drive/v3/changes' });
    fake.addFile('during-outage.pdf', buildPdf([['Outage']]), { parentId: folder.id, mimeType: 'application/pdf' });
    const waiting = await eventually('the read to be postponed', async () => {
      const rows = (await kit.bed.database.query('SELECT read_after, error_message, is_active FROM event_sources WHERE id = $1', [source.id])) as {
        read_after: Date | null;
        error_message: string | null;
        is_active: boolean;
      }[];
      return rows[0]?.read_after ? rows[0] : undefined;
    });
    expect(waiting).toMatchObject({ is_active: true, error_message: expect.stringContaining('unavailable') });
    await kit.bed.database.query(`UPDATE event_sources SET read_after = now() - interval '1 second' WHERE id = $1`, [source.id]);
    expect((await kit.api.eventBus.tick()).reads).toBeGreaterThanOrEqual(1);
    const logs = await settledLogs(kit, kit.alice, 1, `source_id=${source.id}`);
    expect(logs.map((l) => l.payload['file_name'])).toEqual(['during-outage.pdf']);
    expect(kit.router.jobs.length - jobsBefore).toBe(1);
    expect((await getSource(source.id)).error_message).toBeNull();

    fake.expirePageTokens();
    await kit.api.eventBus.watching.requestRead(source.id, 'test');
    await eventually('a new page token', async () => {
      const rows = (await kit.bed.database.query('SELECT page_token FROM event_sources WHERE id = $1', [source.id])) as { page_token: string }[];
      return Number(rows[0]!.page_token) >= fake.drive.startPageToken ? true : undefined;
    });
    expect((await getSource(source.id)).is_active).toBe(true);
  });

  it('lends the access token to the processor, and a revoked grant deactivates the sources with error_message', async () => {
    const source = await activeSource();
    const lent = await request(kit.app).post('/api/internal/cloud-drive/access-token').set('x-service-key', KIT_SERVICE_KEY).send({ user_id: kit.alice.id });
    expect(lent.status).toBe(200);
    expect(lent.body).toEqual({ access_token: expect.any(String), expires_at: expect.any(String) });
    expect(JSON.stringify(lent.body)).not.toMatch(/refresh/);
    const notConnected = await request(kit.app).post('/api/internal/cloud-drive/access-token').set('x-service-key', KIT_SERVICE_KEY).send({ user_id: kit.bob.id });
    expect(notConnected.status).toBe(409);
    expect(notConnected.body).toMatchObject({ error: 'drive_not_connected' });

    fake.oauth.revokeAll();
    const refused = await request(kit.app).post('/api/internal/cloud-drive/access-token').set('x-service-key', KIT_SERVICE_KEY).send({ user_id: kit.alice.id, force_refresh: true });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'drive_needs_reconnect' });
    expect(await getSource(source.id)).toMatchObject({ is_active: false, error_message: expect.any(String) });
    expect((await request(kit.app).get('/api/cloud/oauth/status').set('authorization', kit.alice.auth)).body).toMatchObject({ connected: false, needs_reconnect: true });

    await connect(kit.alice);
    const again = await request(kit.app).post(`/api/event-bus/sources/${source.id}/activate`).set('authorization', kit.alice.auth);
    expect(again.body).toMatchObject({ data: { is_active: true, error_message: null } });
    const off = await request(kit.app).post('/api/cloud/oauth/disconnect').set('authorization', kit.alice.auth);
    expect(off.body).toEqual({ connected: false });
    expect(await getSource(source.id)).toMatchObject({ is_active: false, error_message: expect.stringContaining('disconnected') });
  });
});
