import type { DriveFile, PendingFile } from '@docflow/cloud-drive';
import { openTestBed, TestBed } from '../../test-support/test-app';
import { createActors, type Actors } from '../executions/test-support/actors';
import { DriveSettleRepository } from './drive-settle.repository';

let bed: TestBed;
let actors: Actors;
let repo: DriveSettleRepository;

const file = (id: string, version: string, size = 10): DriveFile => ({
  id,
  name: id,
  mimeType: 'text/plain',
  size,
  version,
  parentIds: ['inbox'],
  modifiedTime: '2030-01-01T00:00:00.000Z',
  webLink: null,
  isFolder: false,
});

async function source(ownerId: number, name: string): Promise<number> {
  const rows = (await bed.database.query(`INSERT INTO event_sources (owner_id, name, source_type, drive_item_id, drive_item_name) VALUES ($1, $2, 'cloud_drive', 'inbox', 'Inbox') RETURNING id`, [
    ownerId,
    name,
  ])) as { id: number }[];
  return rows[0]!.id;
}

async function pendingOf(sourceId: number, f: DriveFile, at: Date): Promise<PendingFile> {
  await repo.observe(sourceId, f, at);
  return (await repo.due(new Date(at.getTime() + 1), 1000)).find((p) => p.sourceId === sourceId && p.fileId === f.id)!;
}

beforeAll(async () => {
  bed = await openTestBed();
  actors = await createActors(bed.database);
  repo = new DriveSettleRepository(bed.database);
});

afterAll(async () => {
  await bed?.close();
});

describe('DriveSettleRepository.claimMany', () => {
  it('claims a pass in one go with claim’s rule per file: changed and re-emitted versions give null, counters and event rows follow', async () => {
    const a = await source(actors.alice.id, 'a');
    const b = await source(actors.bob.id, 'b');
    const t0 = new Date('2030-01-01T00:00:00.000Z');
    const at = new Date('2030-01-01T00:00:05.000Z');

    // A version already emitted for `b/old.txt`, then a new one pending.
    const firstOld = await pendingOf(b, file('old.txt', 'v1'), t0);
    expect(await repo.claimMany([{ pending: firstOld, record: { eventId: 'e-old-1', occurredAt: at } }])).toEqual(['file_created']);
    const claims = [
      { pending: await pendingOf(a, file('one.txt', 'v1'), t0), record: { eventId: 'e-1', occurredAt: at } },
      { pending: await pendingOf(a, file('two.txt', 'v1'), t0), record: { eventId: 'e-2', occurredAt: at } },
      { pending: await pendingOf(a, file('moved.txt', 'v1'), t0), record: { eventId: 'e-3', occurredAt: at } },
      { pending: await pendingOf(b, file('old.txt', 'v2'), t0), record: { eventId: 'e-4', occurredAt: at } },
    ];
    // moved.txt changed after the pass read it: its claim must not emit.
    await repo.observe(a, file('moved.txt', 'v2', 11), new Date('2030-01-01T00:00:03.000Z'));

    expect(await repo.claimMany(claims)).toEqual(['file_created', 'file_created', null, 'file_modified']);
    // The same pass claimed again (another replica): nothing twice.
    expect(await repo.claimMany(claims)).toEqual([null, null, null, null]);

    const counts = (await bed.database.query('SELECT id, event_count FROM event_sources WHERE id = ANY($1) ORDER BY id', [[a, b]])) as { id: number; event_count: number }[];
    expect(counts).toEqual([
      { id: a, event_count: 2 },
      { id: b, event_count: 2 },
    ]);
    const logs = (await bed.database.query("SELECT event_id, owner_id, event_type, status, payload->>'file_name' AS name FROM event_logs ORDER BY event_id")) as Record<string, unknown>[];
    expect(logs).toEqual([
      { event_id: 'e-1', owner_id: actors.alice.id, event_type: 'file_created', status: 'received', name: 'one.txt' },
      { event_id: 'e-2', owner_id: actors.alice.id, event_type: 'file_created', status: 'received', name: 'two.txt' },
      { event_id: 'e-4', owner_id: actors.bob.id, event_type: 'file_modified', status: 'received', name: 'old.txt' },
      { event_id: 'e-old-1', owner_id: actors.bob.id, event_type: 'file_created', status: 'received', name: 'old.txt' },
    ]);
    // moved.txt is still pending with its new version.
    expect((await repo.due(new Date('2030-01-02T00:00:00.000Z'), 100)).map((p) => `${p.fileId}@${p.version}`)).toEqual(['moved.txt@v2']);
  });
});

describe('DriveSettleRepository.observeMany', () => {
  it('observes a page in one go with observe’s rule per file: new, unchanged, changed and already emitted', async () => {
    const a = await source(actors.alice.id, 'many');
    const t0 = new Date('2030-01-01T00:00:00.000Z');
    const t1 = new Date('2030-01-01T00:00:02.000Z');
    const done = await pendingOf(a, file('done.txt', 'v1'), t0);
    expect(await repo.claimMany([{ pending: done, record: { eventId: 'e-many-done', occurredAt: t0 } }])).toEqual(['file_created']);
    await repo.observe(a, file('same.txt', 'v1'), t0);
    await repo.observe(a, file('edited.txt', 'v1'), t0);

    const observed = await repo.observeMany(a, [
      { file: file('same.txt', 'v1'), stableSince: t1 },
      { file: file('new.txt', 'v1'), stableSince: t1 },
      { file: file('done.txt', 'v1'), stableSince: t1 },
      { file: file('edited.txt', 'v2', 12), stableSince: t1 },
    ]);
    expect(observed).toEqual([
      { outcome: 'unchanged', stableSince: t0 },
      { outcome: 'pending', stableSince: t1 },
      { outcome: 'already_emitted', stableSince: null },
      { outcome: 'pending', stableSince: t1 },
    ]);
    const pending = (await repo.due(new Date('2030-01-02T00:00:00.000Z'), 100)).filter((p) => p.sourceId === a);
    expect(pending.map((p) => `${p.fileId}@${p.version}@${p.stableSince.toISOString()}`).sort()).toEqual([
      'edited.txt@v2@2030-01-01T00:00:02.000Z',
      'new.txt@v1@2030-01-01T00:00:02.000Z',
      'same.txt@v1@2030-01-01T00:00:00.000Z',
    ]);
  });
});
