import request from 'supertest';
import yauzl from 'yauzl';
import { createActor, download, type DocumentsKit, filesUnder, openDocumentsKit, upload, type UploadBody } from '../../documents/test-support/documents-kit';
import { completeStepUp, newestOutboxMail } from '../../test-support/step-up-mail';
import { FakeRouter } from '../../test-support/fake-router';
import type { DeletionView } from './account-deletions.service';
import type { ExportView } from './data-exports.service';
import type { ExportManifest } from './export-archive';
import { createProcessorTables, processorRowsOf, seedProcessorRows, seedUserData, tablesWithoutUserLink, userColumns } from './test-support/seed-user-data';

const ROUTER_KEY = 'gdpr-test-router-key-0123456789abcdef';
const GRACE_SECONDS = 3600;
const SECRET = 'sk_live_gdpr_4eC39HqLyjWDarjtT1zdp7dc';
const DAY_MS = 86_400_000;

let kit: DocumentsKit;
let router: FakeRouter;

beforeAll(async () => {
  router = await FakeRouter.start(ROUTER_KEY);
  kit = await openDocumentsKit({ ROUTER_URL: router.url, ROUTER_API_KEY: ROUTER_KEY, ACCOUNT_DELETION_GRACE_SECONDS: String(GRACE_SECONDS) });
  await createProcessorTables(kit.bed.database);
});

/**
 * Tables the catalogue links to no user (no user column, no cascading foreign
 * key to a table with one), each with how a user's rows there are reached.
 */
const UNLINKED_TABLES: Record<string, string> = {
  public_api_migrations: 'no user data',
  rate_limit_counters: 'counters that expire within their window (minutes); keys name ids or digests, never content',
  users: 'the account itself, checked by id',
  workflow_node_runs: "the processor's checkpoints, by execution key: seeded and checked below",
  workflow_wakeups: "the processor's parked runs, by execution key: seeded and checked below",
};

afterAll(async () => {
  await kit?.close();
  await router?.close();
});

/** The entries of a zip archive, by name. */
function unzip(buffer: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      const out = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

const json = <T>(entries: Map<string, Buffer>, name: string): T => {
  const entry = entries.get(name);
  if (!entry) throw new Error(`no ${name} in the archive (has ${[...entries.keys()].join(', ')})`);
  return JSON.parse(entry.toString('utf8')) as T;
};

/** The path below the public base URL that a signed link names (supertest talks to the app directly). */
const localPath = (url: string) => url.replace(kit.config.PUBLIC_BASE_URL, '');

async function uploadText(actor: DocumentsKit['alice'], filename: string, content: string): Promise<number> {
  const res = await upload(kit.app, actor, { content, filename, contentType: 'text/plain' });
  expect(res.status).toBe(201);
  return (res.body as UploadBody).data[0]!.id;
}

async function auditRows(userId: number): Promise<{ action: string; details: Record<string, unknown> }[]> {
  await kit.api.audit.flush();
  return (await kit.bed.database.query('SELECT action, details FROM audit_log WHERE actor_user_id = $1 ORDER BY id', [userId])) as { action: string; details: Record<string, unknown> }[];
}

describe('data export (issue #18 item 1)', () => {
  it('builds one archive with a manifest and everything held about the user, no secrets, downloadable by a signed link', async () => {
    const { alice, bob } = kit;
    const text = 'Alice’s tenancy agreement, signed 2026-01-05.';
    const documentId = await uploadText(alice, 'tenancy.txt', text);
    const seeded = await seedUserData(kit.bed.database, alice.id, documentId, 'alice');
    const credential = await request(kit.app)
      .post('/api/credentials')
      .set('authorization', alice.auth)
      .send({ data: { name: 'Stripe live', provider: 'stripe', fields: { api_key: SECRET } } });
    expect(credential.status).toBe(201);

    const none = await request(kit.app).get('/api/users/me/export').set('authorization', alice.auth);
    expect(none.status).toBe(404);
    const requested = await request(kit.app).post('/api/users/me/export').set('authorization', alice.auth).send();
    expect(requested.status).toBe(202);
    const pending = (requested.body as { data: ExportView }).data;
    expect(pending).toMatchObject({ status: 'pending', download_url: null });
    // A second request while one is pending joins it.
    const again = await request(kit.app).post('/api/users/me/export').set('authorization', alice.auth).send();
    expect((again.body as { data: ExportView }).data.id).toBe(pending.id);

    expect(await kit.api.gdpr.tick()).toEqual({ exportsBuilt: 1, accountsDeleted: 0 });
    const polled = await request(kit.app).get('/api/users/me/export').set('authorization', alice.auth);
    expect(polled.status).toBe(200);
    const ready = (polled.body as { data: ExportView }).data;
    expect(ready).toMatchObject({ id: pending.id, status: 'ready', download_url: expect.stringMatching(/^http:\/\/docs\.test:1337\/api\/users\/me\/export\/\d+\/download\?/) });
    expect(new Date(ready.expires_at!).getTime() - new Date(ready.ready_at!).getTime()).toBe(7 * DAY_MS);
    // Bob sees none of it.
    expect((await request(kit.app).get('/api/users/me/export').set('authorization', bob.auth)).status).toBe(404);

    const file = await download(kit.app, localPath(ready.download_url!));
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/zip');
    expect(file.body.length).toBe(ready.size_bytes);
    const entries = await unzip(file.body);

    const manifest = json<ExportManifest>(entries, 'manifest.json');
    expect(manifest).toMatchObject({ format: 'docflow-user-export', version: 1, export_id: pending.id, user_id: alice.id });
    // Every entry but the manifest is listed in it, and every listed entry is there.
    const listed = [...manifest.sections.map((s) => s.path), ...manifest.files.map((f) => f.path)].sort();
    expect([...entries.keys()].filter((n) => n !== 'manifest.json').sort()).toEqual(listed);
    expect(manifest.files).toEqual([{ path: `documents/files/${documentId}-tenancy.txt`, service: 'documents', bytes: Buffer.byteLength(text), mime_type: expect.stringMatching(/^text\/plain/) }]);
    expect(entries.get(`documents/files/${documentId}-tenancy.txt`)!.toString('utf8')).toBe(text);

    expect(json<{ username: string; email: string }[]>(entries, 'identity/account.json')).toEqual([expect.objectContaining({ id: alice.id, username: 'alice', email: 'alice@docflow.test' })]);
    expect(json<unknown[]>(entries, 'identity/credentials.json')).toEqual([expect.objectContaining({ name: 'Stripe live', provider: 'stripe', field_names: ['api_key'] })]);
    expect(json<{ action: string }[]>(entries, 'identity/audit_log.json').map((r) => r.action)).toContain('gdpr.export.requested');
    // Quotas (issue 18 item 3): no administrator set any for alice; the sections are there all the same.
    expect(json<unknown[]>(entries, 'identity/quotas.json')).toEqual([]);
    expect(Array.isArray(json<unknown[]>(entries, 'identity/quota_periods.json'))).toBe(true);
    expect(json<{ id: number }[]>(entries, 'documents/documents.json').map((d) => d.id)).toEqual([documentId]);
    expect(json<{ document_ids: number[] }[]>(entries, 'documents/collections.json')).toEqual([expect.objectContaining({ name: 'alice papers', document_ids: [documentId] })]);
    expect(json<unknown[]>(entries, 'documents/prompts.json')).toEqual([expect.objectContaining({ title: 'alice invoice fields' })]);
    const [execution] = json<{ id: number; inputs: unknown; timeline: { node_id: string; status: string }[] }[]>(entries, 'workflows/executions.json');
    expect(execution).toMatchObject({ id: seeded.executionId, inputs: { customer: 'alice customer' } });
    expect(execution!.timeline.map((s) => [s.node_id, s.status])).toEqual([
      ['start', 'completed'],
      ['finish', 'completed'],
    ]);
    expect(json<unknown[]>(entries, 'workflows/activities.json')).toHaveLength(1);
    expect(json<unknown[]>(entries, 'workflows/webhooks.json')).toHaveLength(1);
    expect(json<unknown[]>(entries, 'workflows/event_sources.json')).toHaveLength(1);
    const [conversation] = json<{ id: number; messages: { content: string }[] }[]>(entries, 'agents/conversations.json');
    expect(conversation!.messages.map((m) => m.content)).toEqual(['alice asks', 'alice is answered']);
    expect(json<unknown[]>(entries, 'agents/chatbots.json')).toHaveLength(1);
    expect(json<unknown[]>(entries, 'data_shield/detectors.json')).toHaveLength(1);
    expect(json<{ document_id: number; chunks: number }[]>(entries, 'rag/indexed_documents.json')).toEqual([expect.objectContaining({ document_id: documentId, chunks: 2 })]);

    // No secret of any kind: credential values, sealed fields, password and key hashes, drive tokens.
    const everything = [...entries.values()].map((b) => b.toString('utf8')).join('\n');
    const sealed = ((await kit.bed.database.query('SELECT sealed_fields FROM credentials WHERE owner_id = $1', [alice.id])) as { sealed_fields: string }[])[0]!.sealed_fields;
    for (const secret of [SECRET, sealed, 'sealed-drive-tokens']) expect(everything).not.toContain(secret);
    for (const column of ['password_hash', 'sealed_fields', 'api_key_hash', 'secret_hash', 'sealed_tokens', 'correlation_token', 'watch_channel_token', 'storage_key']) {
      expect(everything).not.toContain(`"${column}"`);
    }

    const rows = await auditRows(alice.id);
    expect(rows.filter((r) => r.action.startsWith('gdpr.export.'))).toEqual([
      { action: 'gdpr.export.requested', details: { export_id: pending.id } },
      { action: 'gdpr.export.ready', details: expect.objectContaining({ export_id: pending.id, size_bytes: ready.size_bytes, files: 1 }) },
    ]);
  });

  it('refuses a tampered or expired link, and deletes the archive after its retention', async () => {
    const { alice } = kit;
    const ready = ((await request(kit.app).get('/api/users/me/export').set('authorization', alice.auth)).body as { data: ExportView }).data;
    const url = new URL(ready.download_url!);

    url.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}xx`);
    const tampered = await request(kit.app).get(localPath(url.toString()));
    expect(tampered.status).toBe(403);
    expect(tampered.body).toMatchObject({ error: { status: 403, name: 'ForbiddenError', message: 'Invalid signature' } });

    // Another export's id under this signature.
    const other = await request(kit.app).get(localPath(ready.download_url!).replace(`/export/${ready.id}/`, `/export/${ready.id + 1}/`));
    expect(other.status).toBe(403);

    const record = { id: ready.id, expiresAt: new Date(ready.expires_at!) };
    const stale = kit.api.gdpr.exports.downloadUrl(record, Date.now() - 2 * kit.config.SIGNED_URL_TTL_SECONDS * 1000);
    const expired = await request(kit.app).get(localPath(stale.url));
    expect(expired.status).toBe(403);
    expect(expired.body).toMatchObject({ error: { message: 'This signed URL has expired' } });

    const before = await filesUnder(kit.storageDir);
    expect(await kit.api.gdpr.exports.purgeExpired(new Date(Date.now() + 6 * DAY_MS))).toEqual({ dataExports: 0 });
    expect(await kit.api.gdpr.exports.purgeExpired(new Date(Date.now() + 7 * DAY_MS + 60_000))).toEqual({ dataExports: 1 });
    const after = await filesUnder(kit.storageDir);
    expect(after).toHaveLength(before.length - 1);
    expect(after.every((f) => before.includes(f))).toBe(true);
    expect((await request(kit.app).get('/api/users/me/export').set('authorization', alice.auth)).status).toBe(404);
    expect((await request(kit.app).get(localPath(ready.download_url!))).status).toBe(404);
  });
});

describe('account deletion (issue #18 item 2)', () => {
  it('needs step-up, can be cancelled during the grace, and after it removes everything the user owns in every service', async () => {
    const { bob, alice } = kit;
    const documentId = await uploadText(bob, 'bob-notes.txt', 'Bob’s private notes.');
    const seeded = await seedUserData(kit.bed.database, bob.id, documentId, 'bob');
    // Alice's run of Bob's activity goes with the activity, and so do its processor rows.
    const [aliceRun] = (await kit.bed.database.query(
      `INSERT INTO workflow_executions (activity_id, user_id, status, workflow_definition, job_id) SELECT id, $2, 'running', workflow_definition, $3 FROM activities WHERE id = $1 RETURNING id`,
      [seeded.activityId, alice.id, 'wf_alice_on_bob'],
    )) as { id: number }[];
    await seedProcessorRows(kit.bed.database, aliceRun!.id, 'wf_alice_on_bob', 'alice');
    expect(await processorRowsOf(kit.bed.database, [seeded.executionId, aliceRun!.id], [seeded.jobId, 'wf_alice_on_bob'])).toEqual({ workflow_node_runs: 4, workflow_wakeups: 2 });
    expect(
      (
        await request(kit.app)
          .post('/api/credentials')
          .set('authorization', bob.auth)
          .send({ data: { name: 'IMAP', provider: 'imap', fields: { password: SECRET } } })
      ).status,
    ).toBe(201);
    // Bob's own export is in storage too: it must go with him.
    await request(kit.app).post('/api/users/me/export').set('authorization', bob.auth).send().expect(202);
    await kit.api.gdpr.tick();
    const bobFiles = (await kit.bed.database.query("SELECT storage_key FROM documents WHERE owner_id = $1 UNION ALL SELECT storage_key FROM gdpr_exports WHERE user_id = $1 AND status = 'ready'", [
      bob.id,
    ])) as { storage_key: string }[];
    expect(bobFiles).toHaveLength(2);
    const aliceDocuments = ((await kit.bed.database.query('SELECT count(*)::int AS n FROM documents WHERE owner_id = $1', [alice.id])) as { n: number }[])[0]!.n;

    const noStepUp = await request(kit.app).post('/api/users/me/deletion').set('authorization', bob.auth).send();
    expect(noStepUp.status).toBe(403);
    await completeStepUp(kit.app, bob.auth, () => newestOutboxMail(kit.bed.outboxDir));
    const asked = await request(kit.app).post('/api/users/me/deletion').set('authorization', bob.auth).set('X-Step-Up-Verified', 'true').send();
    expect(asked.status).toBe(202);
    const first = (asked.body as { data: DeletionView }).data;
    expect(first.status).toBe('pending');
    expect(new Date(first.scheduled_for).getTime() - new Date(first.requested_at).getTime()).toBe(GRACE_SECONDS * 1000);
    expect(((await request(kit.app).get('/api/users/me/deletion').set('authorization', bob.auth)).body as { data: DeletionView }).data.id).toBe(first.id);

    const cancelled = await request(kit.app).delete('/api/users/me/deletion').set('authorization', bob.auth);
    expect(cancelled.status).toBe(200);
    expect((cancelled.body as { data: DeletionView }).data).toMatchObject({ id: first.id, status: 'cancelled' });
    expect((await request(kit.app).get('/api/users/me/deletion').set('authorization', bob.auth)).status).toBe(404);
    expect((await request(kit.app).delete('/api/users/me/deletion').set('authorization', bob.auth)).status).toBe(404);
    // A cancelled deletion never runs, even long after its date.
    expect(await kit.api.gdpr.deletions.runDue(new Date(Date.now() + 2 * GRACE_SECONDS * 1000))).toBe(0);
    expect((await request(kit.app).get('/api/users/me').set('authorization', bob.auth)).status).toBe(200);

    const second = ((await request(kit.app).post('/api/users/me/deletion').set('authorization', bob.auth).set('X-Step-Up-Verified', 'true').send().expect(202)).body as { data: DeletionView }).data;
    expect(second.id).not.toBe(first.id);
    // Still in its grace: nothing happens.
    expect(await kit.api.gdpr.deletions.runDue()).toBe(0);
    expect((await request(kit.app).get('/api/users/me').set('authorization', bob.auth)).status).toBe(200);

    // The grace ends.
    expect(await kit.api.gdpr.tick(new Date(new Date(second.scheduled_for).getTime() + 1000))).toEqual({ exportsBuilt: 0, accountsDeleted: 1 });

    expect((await request(kit.app).get('/api/users/me').set('authorization', bob.auth)).status).toBe(401);
    const left: string[] = [];
    for (const { table, column } of await userColumns(kit.bed.database)) {
      if (table === 'audit_log' || table === 'audit_aggregates') continue; // audit rows keep the user id only (spec 2.19)
      const n = ((await kit.bed.database.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [bob.id])) as { n: number }[])[0]!.n;
      if (n > 0) left.push(`${table}.${column}: ${n}`);
    }
    expect(left).toEqual([]);
    // Every other table reaches a user through cascading foreign keys, or is listed with how it is reached.
    expect(await tablesWithoutUserLink(kit.bed.database)).toEqual(Object.keys(UNLINKED_TABLES).sort());
    expect(await processorRowsOf(kit.bed.database, [seeded.executionId, aliceRun!.id], [seeded.jobId, 'wf_alice_on_bob'])).toEqual({});
    expect(await kit.bed.database.query('SELECT id FROM users WHERE id = $1', [bob.id])).toEqual([]);
    const orphans = (await kit.bed.database.query(
      `SELECT (SELECT count(*) FROM agent_messages WHERE conversation_id = $1)::int AS messages,
              (SELECT count(*) FROM workflow_execution_steps WHERE execution_id = $2)::int AS steps,
              (SELECT count(*) FROM rag_chunks WHERE document_id = $3)::int AS chunks,
              (SELECT count(*) FROM collection_documents WHERE document_id = $3)::int AS links`,
      [seeded.conversationId, seeded.executionId, documentId],
    )) as Record<string, number>[];
    expect(orphans).toEqual([{ messages: 0, steps: 0, chunks: 0, links: 0 }]);
    const stored = await filesUnder(kit.storageDir);
    for (const { storage_key } of bobFiles) expect(stored).not.toContain(storage_key);
    expect(router.purged).toEqual(expect.arrayContaining([seeded.jobId, 'wf_alice_on_bob', seeded.classificationJobId]));
    // Alice keeps hers.
    expect(((await kit.bed.database.query('SELECT count(*)::int AS n FROM documents WHERE owner_id = $1', [alice.id])) as { n: number }[])[0]!.n).toBe(aliceDocuments);

    const rows = await auditRows(bob.id);
    const gdpr = rows.filter((r) => r.action.startsWith('gdpr.delete.'));
    expect(gdpr.map((r) => r.action)).toEqual(['gdpr.delete.confirmed', 'gdpr.delete.cancelled', 'gdpr.delete.confirmed', 'gdpr.delete.completed']);
    const cascade = rows.filter((r) => r.action === 'service.cascade_delete');
    expect(cascade.map((r) => r.details.service)).toEqual(['workflows', 'agents', 'data_shield', 'rag', 'documents', 'identity']);
    expect(cascade.find((r) => r.details.service === 'documents')!.details.removed).toMatchObject({ documents: 1, storedFiles: 1, collections: 1, routerJobs: 0 });
    expect(cascade.find((r) => r.details.service === 'workflows')!.details.removed).toMatchObject({
      nodeRuns: 4,
      parkedRuns: 2,
      executions: 1,
      webhooks: 1,
      schedules: 1,
      sourcesStopped: 1,
      activities: 1,
    });
    expect(cascade.find((r) => r.details.service === 'identity')!.details.removed).toMatchObject({ users: 1, credentials: 1, dataExports: 1 });
    // No personal data in what remains: ids and counts only.
    const remaining = JSON.stringify(rows.filter((r) => r.action.startsWith('gdpr.delete') || r.action === 'service.cascade_delete'));
    for (const personal of ['bob@docflow.test', '"bob"', 'bob notes', 'Bob’s', 'bob inbox', 'bob customer']) expect(remaining).not.toContain(personal);
  });
});

describe('when something fails', () => {
  it('tries an export whose file cannot be read again on later rounds, then marks it failed', async () => {
    const carol = await createActor(kit.bed.database, 'carol');
    await uploadText(carol, 'carol.txt', 'Carol’s file.');
    const [stored] = (await kit.bed.database.query('SELECT storage_key FROM documents WHERE owner_id = $1', [carol.id])) as { storage_key: string }[];
    await kit.api.documents.storage.delete(stored!.storage_key);
    await request(kit.app).post('/api/users/me/export').set('authorization', carol.auth).send().expect(202);
    const state = async () => ((await request(kit.app).get('/api/users/me/export').set('authorization', carol.auth)).body as { data: ExportView }).data.status;
    // One attempt per round.
    expect(await kit.api.gdpr.exports.buildPending()).toBe(0);
    expect(await state()).toBe('pending');
    expect(await kit.api.gdpr.exports.buildPending()).toBe(0);
    expect(await state()).toBe('pending');
    expect(await kit.api.gdpr.exports.buildPending()).toBe(0);
    expect(await state()).toBe('failed');
    expect(await kit.api.gdpr.exports.buildPending()).toBe(0);
    const [row] = (await kit.bed.database.query('SELECT attempts, storage_key FROM gdpr_exports WHERE user_id = $1', [carol.id])) as { attempts: number; storage_key: string | null }[];
    expect(row).toEqual({ attempts: 3, storage_key: null });
  });

  it('runs a deletion the router refused again on the next round, from the start', async () => {
    const dave = await createActor(kit.bed.database, 'dave');
    const documentId = await uploadText(dave, 'dave.txt', 'Dave’s file.');
    const seeded = await seedUserData(kit.bed.database, dave.id, documentId, 'dave');
    const deletion = await kit.api.gdpr.deletions.request(dave.id);
    const after = new Date(new Date(deletion.scheduled_for).getTime() + 1000);
    router.mode = 'broker_down';
    try {
      expect(await kit.api.gdpr.deletions.runDue(after)).toBe(0);
    } finally {
      router.mode = 'queue';
    }
    // Tokens stop at once; the data waits for the next round.
    expect((await request(kit.app).get('/api/users/me').set('authorization', dave.auth)).status).toBe(401);
    expect(await kit.bed.database.query('SELECT id FROM workflow_executions WHERE id = $1', [seeded.executionId])).toHaveLength(1);
    expect((await request(kit.app).delete('/api/users/me/deletion').set('authorization', dave.auth)).status).toBe(401);
    expect(await kit.api.gdpr.deletions.runDue(after)).toBe(1);
    expect(await kit.bed.database.query('SELECT id FROM users WHERE id = $1', [dave.id])).toEqual([]);
    expect(router.purged).toContain(seeded.jobId);
  });
});
