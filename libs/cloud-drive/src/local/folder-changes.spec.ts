import { FolderChanges } from './folder-changes';

describe('FolderChanges', () => {
  let now = 0;
  const make = () => new FolderChanges(30_000, () => now);

  beforeEach(() => {
    now = 1_000_000;
  });

  it('asks for a whole read until a watch is open and the folder was read whole', () => {
    const c = make();
    expect(c.changedSince(now - 1000)).toBeUndefined();
    c.opened();
    const openedAt = now;
    expect(c.changedSince(openedAt)).toBeUndefined();
    c.readWhole(now, 60_000);
    now += 10;
    c.saw('a.txt');
    expect(c.changedSince(openedAt)).toEqual(['a.txt']);
  });

  it('names only what changed at or after the time asked for', () => {
    const c = make();
    c.opened();
    c.readWhole(now, 60_000);
    now += 100;
    c.saw('old.txt');
    now += 100;
    const since = now;
    c.saw('new.txt');
    expect(c.changedSince(since)).toEqual(['new.txt']);
  });

  it('asks for a whole read from before the watch opened, after an event without a name, and once per rescan period', () => {
    const c = make();
    c.opened();
    const openedAt = now;
    c.readWhole(now, 60_000);
    expect(c.changedSince(openedAt - 1)).toBeUndefined();
    now += 100;
    c.saw(null);
    expect(c.changedSince(openedAt)).toBeUndefined();
    expect(c.changedSince(now)).toEqual([]);
    now += 30_000;
    expect(c.changedSince(now - 10)).toBeUndefined();
  });

  it('forgets everything once its last watch closes, and starts again when one reopens', () => {
    const c = make();
    c.opened();
    c.opened();
    c.readWhole(now, 60_000);
    now += 10;
    c.saw('a.txt');
    c.closed();
    expect(c.changedSince(now - 10)).toEqual(['a.txt']);
    c.closed();
    expect(c.changedSince(now - 10)).toBeUndefined();
    now += 10;
    c.opened();
    const reopened = now;
    expect(c.changedSince(reopened - 1)).toBeUndefined();
    expect(c.changedSince(reopened)).toEqual([]);
  });

  it('drops names older than the kept time at a whole read, and then answers only from that time on', () => {
    const c = make();
    c.opened();
    c.readWhole(now, 60_000);
    c.saw('a.txt');
    const sawA = now;
    now += 120_000;
    c.readWhole(now, 60_000);
    expect(c.changedSince(sawA)).toBeUndefined();
    expect(c.changedSince(now - 60_000)).toEqual([]);
  });
});
