import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { silentLogger } from '@docflow/service-kit';
import type { DriveNotification } from '../drive-provider';
import { FolderChanges } from './folder-changes';
import { LocalDriveProvider } from './local-drive';
import { normaliseLocalId } from './local-paths';

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('normaliseLocalId', () => {
  it('keeps relative paths and drops . and empty segments', () => {
    expect(normaliseLocalId('inbox')).toBe('inbox');
    expect(normaliseLocalId('./inbox//a.pdf')).toBe('inbox/a.pdf');
    expect(normaliseLocalId('')).toBe('');
    expect(normaliseLocalId('.')).toBe('');
    expect(normaliseLocalId('a..b/c..')).toBe('a..b/c..');
  });

  it.each([['../x'], ['inbox/../../etc'], ['/etc/passwd'], ['C:/x'], ['a\\b'], ['a\0b'], ['..']])('refuses %j', (id) => {
    expect(() => normaliseLocalId(id)).toThrow(expect.objectContaining({ kind: 'invalid_path' }));
  });

  it('refuses what is not a string', () => {
    expect(() => normaliseLocalId(42)).toThrow(expect.objectContaining({ kind: 'invalid_path' }));
  });
});

describe('LocalDriveProvider', () => {
  let root: string;
  let outside: string;
  let notifications: DriveNotification[];
  let drive: LocalDriveProvider;
  let waiters: (() => void)[];

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'docflow-drive-'));
    outside = await mkdtemp(path.join(os.tmpdir(), 'docflow-outside-'));
    notifications = [];
    waiters = [];
    drive = new LocalDriveProvider({
      root,
      logger: silentLogger,
      rescanMs: 3_600_000,
      debounceMs: 20,
      onNotification: (n) => {
        notifications.push(n);
        waiters.splice(0).forEach((w) => w());
      },
    });
  });

  afterEach(async () => {
    await drive.close();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const userDir = (id: number) => path.join(root, String(id));

  it('is always connected', async () => {
    expect(await drive.grantStatus()).toEqual({ connected: true, needsReconnect: false });
    expect(await drive.beginConnect()).toEqual({ kind: 'connected' });
  });

  it("creates a new source's folder inside the user's drive", async () => {
    const folder = await drive.prepareFolder(7, 'inbox/scans');
    expect(folder).toMatchObject({ id: 'inbox/scans', name: 'scans', isFolder: true, parentIds: ['inbox'] });
    expect((await drive.getFile(7, 'inbox')).isFolder).toBe(true);
  });

  it('reads files by their path relative to the drive, and finds them by name in a folder', async () => {
    await mkdir(path.join(userDir(7), 'inbox'), { recursive: true });
    await writeFile(path.join(userDir(7), 'inbox', 'a.pdf'), '%PDF-1.4 hello');
    const file = await drive.getFile(7, 'inbox/a.pdf');
    expect(file).toMatchObject({ id: 'inbox/a.pdf', name: 'a.pdf', mimeType: 'application/pdf', size: 14, parentIds: ['inbox'], isFolder: false, webLink: null });
    expect(await drive.findFile(7, 'inbox', 'a.pdf')).toMatchObject({ id: 'inbox/a.pdf' });
    expect(await drive.findFile(7, 'inbox', 'missing.pdf')).toBeNull();
    const download = await drive.download(7, 'inbox/a.pdf');
    expect(await text(download.stream)).toBe('%PDF-1.4 hello');
  });

  it("keeps users apart: another user's path is simply not in the drive", async () => {
    await mkdir(path.join(userDir(7), 'inbox'), { recursive: true });
    await writeFile(path.join(userDir(7), 'inbox', 'a.pdf'), 'x');
    await expect(drive.getFile(8, 'inbox/a.pdf')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(drive.getFile(8, '../7/inbox/a.pdf')).rejects.toMatchObject({ kind: 'invalid_path' });
  });

  it('refuses links, whether they lead out of the drive or not', async () => {
    await mkdir(path.join(userDir(7), 'inbox'), { recursive: true });
    await writeFile(path.join(outside, 'secret.txt'), 'secret');
    await writeFile(path.join(userDir(7), 'inbox', 'real.txt'), 'real');
    await symlink(path.join(outside, 'secret.txt'), path.join(userDir(7), 'inbox', 'leak.txt'));
    await symlink(outside, path.join(userDir(7), 'elsewhere'));
    await symlink(path.join(userDir(7), 'inbox', 'real.txt'), path.join(userDir(7), 'inbox', 'alias.txt'));
    await expect(drive.download(7, 'inbox/leak.txt')).rejects.toMatchObject({ kind: 'invalid_path' });
    await expect(drive.getFile(7, 'elsewhere/secret.txt')).rejects.toMatchObject({ kind: 'invalid_path' });
    await expect(drive.prepareFolder(7, 'elsewhere')).rejects.toMatchObject({ kind: 'invalid_path' });
    await expect(drive.getFile(7, 'inbox/alias.txt')).rejects.toMatchObject({ kind: 'invalid_path' });
    await expect(drive.findFile(7, 'inbox', 'leak.txt')).rejects.toMatchObject({ kind: 'invalid_path' });
    // A change list skips links altogether.
    const page = await drive.listChanges(7, 'inbox', 'local-1:0');
    expect(page.changes.map((c) => c.fileId)).toEqual(['inbox/real.txt']);
  });

  it('refuses a file name with a slash in search mode', async () => {
    await drive.prepareFolder(7, 'inbox');
    await expect(drive.findFile(7, 'inbox', '../x')).rejects.toMatchObject({ kind: 'invalid_path' });
  });

  it('lists the files of the folder changed since the page token (no folders, no hidden files)', async () => {
    await drive.prepareFolder(7, 'inbox');
    await mkdir(path.join(userDir(7), 'inbox', 'sub'));
    await writeFile(path.join(userDir(7), 'inbox', 'a.pdf'), 'a');
    await writeFile(path.join(userDir(7), 'inbox', '.a.pdf.part'), 'partial');
    const all = await drive.listChanges(7, 'inbox', 'local-1:0');
    expect(all.changes.map((c) => c.fileId)).toEqual(['inbox/a.pdf']);
    expect(all.newStartPageToken).toMatch(/^local-1:\d+$/);
    const future = `local-1:${Date.now() + 60_000}`;
    expect((await drive.listChanges(7, 'inbox', future)).changes).toEqual([]);
    await expect(drive.listChanges(7, 'inbox', 'not-a-token')).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('gives an edited file a new version', async () => {
    await drive.prepareFolder(7, 'inbox');
    const p = path.join(userDir(7), 'inbox', 'a.txt');
    await writeFile(p, 'one');
    const before = await drive.getFile(7, 'inbox/a.txt');
    await writeFile(p, 'one two');
    const after = await drive.getFile(7, 'inbox/a.txt');
    expect(after.version).not.toBe(before.version);
    expect(after.size).toBe(7);
  });

  it('refuses a download larger than the limit', async () => {
    await drive.prepareFolder(7, 'inbox');
    await writeFile(path.join(userDir(7), 'inbox', 'big.bin'), Buffer.alloc(2048));
    await expect(drive.download(7, 'inbox/big.bin', { maxBytes: 1024 })).rejects.toMatchObject({ kind: 'unsupported' });
    const ok = await drive.download(7, 'inbox/big.bin', { maxBytes: 4096 });
    expect((await text(ok.stream)).length).toBe(2048);
  });

  it('notifies sync when a watch opens and change when a file lands, with the channel id and token', async () => {
    await drive.prepareFolder(7, 'inbox');
    const token = await drive.getStartPageToken(7, 'inbox');
    const watch = await drive.watch(7, { folderId: 'inbox', pageToken: token, channelId: 'ch-1', channelToken: 'secret-1', address: 'unused' });
    expect(watch).toMatchObject({ channelId: 'ch-1', resourceId: 'local:7:inbox' });
    expect(watch.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
    expect(notifications).toEqual([{ channelId: 'ch-1', channelToken: 'secret-1', resourceId: 'local:7:inbox', resourceState: 'sync', messageNumber: 1 }]);
    const changed = new Promise<void>((resolve) => waiters.push(resolve));
    await writeFile(path.join(userDir(7), 'inbox', 'new.pdf'), 'x');
    await changed;
    expect(notifications[1]).toMatchObject({ channelId: 'ch-1', channelToken: 'secret-1', resourceState: 'change' });
    const page = await drive.listChanges(7, 'inbox', token);
    expect(page.changes.map((c) => c.fileId)).toContain('inbox/new.pdf');
    await drive.stopWatch(7, watch);
    expect(drive.activeWatchCount).toBe(0);
  });

  it('reads a watched folder from the names its watch saw change: a new file and an edit, not a file left alone', async () => {
    await drive.prepareFolder(7, 'inbox');
    const inbox = path.join(userDir(7), 'inbox');
    await writeFile(path.join(inbox, 'kept.txt'), 'old');
    await writeFile(path.join(inbox, 'edited.txt'), 'v1');
    const token = await drive.getStartPageToken(7, 'inbox');
    const watch = await drive.watch(7, { folderId: 'inbox', pageToken: token, channelId: 'ch-2', channelToken: 'secret-2', address: 'unused' });
    // Past the page token's slack, so that the next read's start is after the watch opened.
    await new Promise((r) => setTimeout(r, 2100 + 50));
    // The first read lists the folder whole (nothing was read whole yet), and finds nothing new.
    const first = await drive.listChanges(7, 'inbox', await drive.getStartPageToken(7, 'inbox'));
    expect(first.changes).toEqual([]);
    const changed = new Promise<void>((resolve) => waiters.push(resolve));
    await writeFile(path.join(inbox, 'new.txt'), 'x');
    await writeFile(path.join(inbox, 'edited.txt'), 'v2');
    await changed;
    const asked = jest.spyOn(FolderChanges.prototype, 'changedSince');
    const page = await drive.listChanges(7, 'inbox', first.newStartPageToken!);
    expect(page.changes.map((c) => c.fileId).sort()).toEqual(['inbox/edited.txt', 'inbox/new.txt']);
    // From the watch's names, without listing the folder.
    expect((asked.mock.results[0]?.value as string[] | undefined)?.sort()).toEqual(['edited.txt', 'new.txt']);
    asked.mockRestore();
    await drive.stopWatch(7, watch);
  });

  it('rereads a listed file with the version the change list gave (what the settler compares)', async () => {
    await drive.prepareFolder(7, 'inbox');
    await writeFile(path.join(userDir(7), 'inbox', 'r.txt'), 'hello');
    const listed = (await drive.listChanges(7, 'inbox', 'local-1:0')).changes[0]!.file!;
    expect((await drive.getFile(7, listed.id)).version).toBe(listed.version);
    expect(await readFile(path.join(userDir(7), 'inbox', 'r.txt'), 'utf8')).toBe('hello');
  });
});
