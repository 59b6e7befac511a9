import { silentLogger } from '@docflow/service-kit';
import { DriveNotFoundError, DriveRetryableError } from '../drive-errors';
import type { DriveFile } from '../drive-provider';
import type { SettledFileEvent } from './drive-event';
import { EMPTY_FILE_QUIET_MS, FileSettler } from './file-settler';
import { InMemorySettleStore } from './settle-store';

function file(id: string, version: string, size = 100): DriveFile {
  return { id, name: id, mimeType: 'application/pdf', size, version, parentIds: ['inbox'], modifiedTime: '2025-01-01T00:00:00.000Z', webLink: null, isFolder: false };
}

/** A settler on a hand-moved clock, over a "drive" the test edits. */
function harness(settleMs = 5000) {
  let now = Date.parse('2025-01-01T00:00:00Z');
  const drive = new Map<string, DriveFile | Error>();
  const events: SettledFileEvent[] = [];
  const store = new InMemorySettleStore();
  let ids = 0;
  const settler = new FileSettler({
    store,
    settleMs,
    logger: silentLogger,
    clock: () => new Date(now),
    newEventId: () => `evt-${++ids}`,
    recheck: async (p) => {
      const current = drive.get(p.fileId);
      if (current instanceof Error) throw current;
      return current ?? null;
    },
    onEvent: (e) => void events.push(e),
  });
  const see = async (sourceId: number, f: DriveFile) => {
    drive.set(f.id, f);
    await settler.observeChanges(sourceId, [{ fileId: f.id, removed: false, file: f }]);
  };
  return { settler, store, drive, events, see, advance: (ms: number) => (now += ms) };
}

describe('FileSettler', () => {
  it('emits file_created once the size and version stayed the same for the settle time, not before', async () => {
    const h = harness();
    await h.see(1, file('a.pdf', 'v1'));
    h.advance(4999);
    expect((await h.settler.settleDue()).emitted).toEqual([]);
    h.advance(1);
    const pass = await h.settler.settleDue();
    expect(pass.emitted.map((e) => [e.eventType, e.file.id, e.eventId])).toEqual([['file_created', 'a.pdf', 'evt-1']]);
    expect(h.store.pendingCount).toBe(0);
  });

  it('restarts the clock when the file changed by the time it is reread', async () => {
    const h = harness();
    await h.see(1, file('a.pdf', 'v1', 100));
    h.advance(5000);
    h.drive.set('a.pdf', file('a.pdf', 'v2', 200));
    const pass = await h.settler.settleDue();
    expect(pass).toMatchObject({ emitted: [], restarted: 1 });
    h.advance(4000);
    expect((await h.settler.settleDue()).emitted).toEqual([]);
    h.advance(1000);
    const later = await h.settler.settleDue();
    expect(later.emitted.map((e) => [e.eventType, e.file.version])).toEqual([['file_created', 'v2']]);
  });

  it('restarts the clock on a new sighting with another version (a file still being written)', async () => {
    const h = harness();
    await h.see(1, file('a.pdf', 'v1', 10));
    h.advance(3000);
    await h.see(1, file('a.pdf', 'v2', 20));
    h.advance(3000);
    expect((await h.settler.settleDue()).emitted).toEqual([]);
    h.advance(2000);
    expect((await h.settler.settleDue()).emitted).toHaveLength(1);
  });

  it('keeps the clock for a repeated sighting of the same version (a push delivered twice)', async () => {
    const h = harness();
    await h.see(1, file('a.pdf', 'v1'));
    h.advance(3000);
    await h.see(1, file('a.pdf', 'v1'));
    h.advance(2000);
    expect((await h.settler.settleDue()).emitted).toHaveLength(1);
  });

  it('emits one file_created per file and a file_modified per later version, never the same version twice', async () => {
    const h = harness();
    await h.see(1, file('a.pdf', 'v1'));
    h.advance(5000);
    await h.settler.settleDue();
    // The same version seen again (rescan, duplicate push): nothing.
    await h.see(1, file('a.pdf', 'v1'));
    h.advance(5000);
    expect((await h.settler.settleDue()).emitted).toEqual([]);
    await h.see(1, file('a.pdf', 'v2'));
    h.advance(5000);
    await h.settler.settleDue();
    await h.see(1, file('a.pdf', 'v3'));
    h.advance(5000);
    await h.settler.settleDue();
    expect(h.events.map((e) => `${e.eventType}:${e.file.version}`)).toEqual(['file_created:v1', 'file_modified:v2', 'file_modified:v3']);
  });

  it('keeps sources apart: the same file in two sources emits for each', async () => {
    const h = harness();
    await h.see(1, file('a.pdf', 'v1'));
    await h.see(2, file('a.pdf', 'v1'));
    h.advance(5000);
    const pass = await h.settler.settleDue();
    expect(pass.emitted.map((e) => [e.sourceId, e.eventType]).sort()).toEqual([
      [1, 'file_created'],
      [2, 'file_created'],
    ]);
  });

  it('drops a file removed before it settled, from a change or from the reread', async () => {
    const h = harness();
    await h.see(1, file('a.pdf', 'v1'));
    await h.see(1, file('b.pdf', 'v1'));
    await h.settler.observeChanges(1, [{ fileId: 'a.pdf', removed: true, file: null }]);
    h.drive.delete('b.pdf');
    h.advance(5000);
    const pass = await h.settler.settleDue();
    expect(pass).toMatchObject({ emitted: [], dropped: 1 });
    expect(h.store.pendingCount).toBe(0);
  });

  it('treats a reread that finds nothing (not found) as removed, and keeps a file pending when the drive is unavailable', async () => {
    const h = harness();
    await h.see(1, file('gone.pdf', 'v1'));
    await h.see(1, file('busy.pdf', 'v1'));
    h.drive.set('gone.pdf', new DriveNotFoundError('gone'));
    h.drive.set('busy.pdf', new DriveRetryableError('rate limited', 1000, 429));
    h.advance(5000);
    expect(await h.settler.settleDue()).toMatchObject({ emitted: [], dropped: 1, deferred: 1 });
    h.drive.set('busy.pdf', file('busy.pdf', 'v1'));
    expect((await h.settler.settleDue()).emitted.map((e) => e.file.id)).toEqual(['busy.pdf']);
  });

  it('ignores folders in change lists', async () => {
    const h = harness();
    await h.settler.observeChanges(1, [{ fileId: 'sub', removed: false, file: { ...file('sub', 'v1'), isFolder: true } }]);
    expect(h.store.pendingCount).toBe(0);
  });

  it('lets only one of two settlers sharing a store emit a file (replicas)', async () => {
    const h = harness();
    const second = new FileSettler({
      store: h.store,
      settleMs: 5000,
      logger: silentLogger,
      clock: () => new Date(Date.parse('2025-01-01T00:00:05Z')),
      recheck: async (p) => h.drive.get(p.fileId) as DriveFile,
      onEvent: (e) => void h.events.push(e),
    });
    await h.see(1, file('a.pdf', 'v1'));
    h.advance(5000);
    await Promise.all([h.settler.settleDue(), second.settleDue()]);
    expect(h.events).toHaveLength(1);
  });
  describe('a zero-byte file (created, its content not written yet)', () => {
    const T0 = Date.parse('2025-01-01T00:00:00Z');
    const empty = (version: string, modifiedMs: number): DriveFile => ({ ...file('a.pdf', version, 0), modifiedTime: new Date(modifiedMs).toISOString() });

    it('does not settle empty while its last write is recent: the content that lands later emits file_created, once, and no file_modified', async () => {
      const h = harness();
      await h.see(1, empty('v0', T0));
      h.advance(5000);
      expect((await h.settler.settleDue()).emitted).toEqual([]);
      h.advance(1000);
      await h.see(1, file('a.pdf', 'v1', 100));
      h.advance(5000);
      await h.settler.settleDue();
      h.advance(EMPTY_FILE_QUIET_MS);
      await h.settler.settleDue();
      expect(h.events.map((e) => `${e.eventType}:${e.file.version}:${e.file.size}`)).toEqual(['file_created:v1:100']);
    });

    it('still emits a file that is really empty, once it has been unmodified for the quiet time', async () => {
      const h = harness();
      await h.see(1, empty('v0', T0));
      h.advance(EMPTY_FILE_QUIET_MS - 1);
      expect((await h.settler.settleDue()).emitted).toEqual([]);
      h.advance(1);
      expect((await h.settler.settleDue()).emitted.map((e) => [e.eventType, e.file.size])).toEqual([['file_created', 0]]);
    });

    it('settles an empty file last written long ago on the usual settle time, and one dated in the future at most the quiet time after it was seen', async () => {
      const h = harness();
      await h.see(1, empty('v0', T0 - 3_600_000));
      h.advance(5000);
      expect((await h.settler.settleDue()).emitted).toHaveLength(1);
      await h.see(2, empty('v0', T0 + 86_400_000));
      h.advance(EMPTY_FILE_QUIET_MS);
      expect((await h.settler.settleDue()).emitted.map((e) => e.sourceId)).toEqual([2]);
    });

    it('applies when a reread finds the file emptied (truncated to be rewritten)', async () => {
      const h = harness();
      await h.see(1, file('a.pdf', 'v1', 100));
      h.advance(5000);
      h.drive.set('a.pdf', empty('v2', T0 + 5000));
      expect(await h.settler.settleDue()).toMatchObject({ emitted: [], restarted: 1 });
      h.advance(5000);
      expect((await h.settler.settleDue()).emitted).toEqual([]);
      h.advance(EMPTY_FILE_QUIET_MS - 5000);
      expect((await h.settler.settleDue()).emitted.map((e) => [e.eventType, e.file.version])).toEqual([['file_created', 'v2']]);
    });
  });

  it('once started, runs a pass when an observed file becomes due, without waiting for the tick', async () => {
    const events: SettledFileEvent[] = [];
    const drive = new Map<string, DriveFile>([['a.pdf', file('a.pdf', 'v1')]]);
    const settler = new FileSettler({
      store: new InMemorySettleStore(),
      settleMs: 50,
      logger: silentLogger,
      recheck: async (p) => drive.get(p.fileId) ?? null,
      onEvent: (e) => void events.push(e),
    });
    settler.start(60_000);
    try {
      const t0 = Date.now();
      await settler.observeChanges(1, [{ fileId: 'a.pdf', removed: false, file: drive.get('a.pdf')! }]);
      while (events.length === 0 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
      expect(events.map((e) => e.file.id)).toEqual(['a.pdf']);
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      await settler.stop();
    }
  });
});
