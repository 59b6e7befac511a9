import { constants, createReadStream, lstatSync } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@docflow/service-kit';
import { limitBytes, tooLarge } from '../byte-limit';
import { DriveNotFoundError, DrivePathError, DriveProtocolError } from '../drive-errors';
import type { ChangePage, ConnectStart, DownloadOptions, DriveDownload, DriveFile, DriveNotification, DriveProvider, DriveWatch, GrantStatus, WatchRequest } from '../drive-provider';
import { FOLDER_MIME_TYPE, mimeTypeFromName } from '../mime-types';
import { watchExpiry } from '../watch-schedule';
import { LocalDriveRoot, type LocalItem } from './local-paths';
import { FolderChanges } from './folder-changes';
import { LocalFolderWatch } from './local-watcher';

export interface LocalDriveOptions {
  /** `CLOUD_DRIVE_LOCAL_ROOT`, resolved to an absolute path by the caller. */
  root: string;
  /** Where watches deliver their notifications (the same handler as the Google push receiver's). */
  onNotification(notification: DriveNotification): void;
  logger: Logger;
  /** Periodic rescan of each watched folder. Default 30 000 ms. */
  rescanMs?: number;
  /** fs.watch events closer than this give one notification. Default 50 ms (reads of one source asked for meanwhile fold into one). */
  debounceMs?: number;
}

const TOKEN_PREFIX = 'local-1:';
/**
 * A change list reports files whose ctime is at or after the token's time
 * less this margin: ctime moves on every write, rename and copy (cp -p
 * included), and the settle store drops what was already seen.
 */
const TOKEN_SLACK_MS = 2000;

function pageTokenAt(ms: number): string {
  return `${TOKEN_PREFIX}${ms}`;
}

function timeOfPageToken(token: string): number {
  const ms = token.startsWith(TOKEN_PREFIX) ? Number(token.slice(TOKEN_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(ms) || ms < 0) throw new DriveProtocolError('Not a page token of the local drive');
  return ms;
}

/** Names a drive listing skips: hidden files (editors' and rsync's temporary files start with a dot). */
function listed(name: string): boolean {
  return !name.startsWith('.');
}

/**
 * The `local` provider (default; runtime contract): user N's drive is the
 * folder `<root>/N/`, ids are paths relative to it. There is no grant to
 * manage, changes are found by scanning the watched folder (fs.watch and a
 * periodic rescan tell when), and a file's version is its size, mtime and
 * inode, so an edit or a replacement is a new version.
 */
export class LocalDriveProvider implements DriveProvider {
  readonly kind = 'local' as const;
  private readonly drives: LocalDriveRoot;
  private readonly watches = new Map<string, LocalFolderWatch>();
  /** Per watched folder (absolute path): the names this process's watches saw change. */
  private readonly folders = new Map<string, FolderChanges>();

  constructor(private readonly options: LocalDriveOptions) {
    this.drives = new LocalDriveRoot(options.root);
  }

  async grantStatus(): Promise<GrantStatus> {
    return { connected: true, needsReconnect: false };
  }

  async beginConnect(): Promise<ConnectStart> {
    return { kind: 'connected' };
  }

  async completeConnect(): Promise<void> {
    // Nothing to complete: a local drive needs no grant.
  }

  async disconnect(): Promise<void> {
    // Nothing to forget.
  }

  async prepareFolder(userId: number, folderId: string): Promise<DriveFile> {
    return this.describe(await this.drives.folder(userId, folderId, { create: true }));
  }

  async getStartPageToken(userId: number, folderId: string): Promise<string> {
    await this.drives.folder(userId, folderId);
    return pageTokenAt(Date.now());
  }

  async listChanges(userId: number, folderId: string, pageToken: string): Promise<ChangePage> {
    const since = timeOfPageToken(pageToken) - TOKEN_SLACK_MS;
    const scanStartedAt = Date.now();
    const folder = await this.drives.folder(userId, folderId);
    const changes: ChangePage['changes'] = [];
    const seen = this.folders.get(folder.absolute);
    const names = seen?.changedSince(since);
    if (names) {
      // Only the names this process's watch saw change since then (FolderChanges says when that is enough).
      for (const name of names) {
        if (!listed(name)) continue;
        const absolute = path.join(folder.absolute, name);
        const stats = lstatSyncOrNull(absolute);
        if (!stats || !stats.isFile() || stats.ctimeMs < since) continue;
        const file = this.describe({ id: joinId(folder.id, name), absolute, stats });
        changes.push({ fileId: file.id, removed: false, file });
      }
      return { changes, newStartPageToken: pageTokenAt(scanStartedAt) };
    }
    seen?.readWhole(scanStartedAt, SEEN_NAMES_KEPT_MS);
    const entries = await readdir(folder.absolute, { withFileTypes: true });
    for (let i = 0; i < entries.length; i += 1) {
      const entry = entries[i]!;
      // Dirent does not follow links: a link is neither a file nor a folder here.
      if (!entry.isFile() || !listed(entry.name)) continue;
      const absolute = path.join(folder.absolute, entry.name);
      // A synchronous lstat costs a few microseconds of this thread, a promised one several times that in
      // callbacks; a folder is read whole on every notification, so the loop yields every SCAN_SLICE entries instead.
      if (i % SCAN_SLICE === SCAN_SLICE - 1) await new Promise((r) => setImmediate(r));
      const stats = lstatSyncOrNull(absolute);
      if (!stats || !stats.isFile() || stats.ctimeMs < since) continue;
      const file = this.describe({ id: joinId(folder.id, entry.name), absolute, stats });
      changes.push({ fileId: file.id, removed: false, file });
    }
    // One page: a folder is read whole (removals show up when the settler rereads a file).
    return { changes, newStartPageToken: pageTokenAt(scanStartedAt) };
  }

  async watch(userId: number, request: WatchRequest): Promise<DriveWatch> {
    const folder = await this.drives.folder(userId, request.folderId);
    this.watches.get(request.channelId)?.close();
    const expiresAt = watchExpiry(new Date(), request.ttlMs);
    const rescanMs = this.options.rescanMs ?? 30_000;
    let changes = this.folders.get(folder.absolute);
    if (!changes) {
      changes = new FolderChanges(rescanMs);
      this.folders.set(folder.absolute, changes);
    }
    const resourceId = `local:${userId}:${folder.id}`;
    const watch = new LocalFolderWatch({
      channelId: request.channelId,
      channelToken: request.channelToken,
      resourceId,
      folder: folder.absolute,
      expiresAt,
      rescanMs,
      debounceMs: this.options.debounceMs ?? 50,
      changes,
      notify: this.options.onNotification,
      logger: this.options.logger,
    });
    this.watches.set(request.channelId, watch);
    return { channelId: request.channelId, resourceId, expiresAt };
  }

  async stopWatch(_userId: number, watch: Pick<DriveWatch, 'channelId'>): Promise<void> {
    this.watches.get(watch.channelId)?.close();
    this.watches.delete(watch.channelId);
  }

  async getFile(userId: number, fileId: string): Promise<DriveFile> {
    return this.describe(await this.drives.item(userId, fileId));
  }

  async findFile(userId: number, folderId: string, name: string): Promise<DriveFile | null> {
    if (!name || name.includes('/') || name === '.' || name === '..') throw new DrivePathError('A file name must be one name, without /');
    const folder = await this.drives.folder(userId, folderId);
    try {
      return this.describe(await this.drives.file(userId, joinId(folder.id, name)));
    } catch (err) {
      if (err instanceof DriveNotFoundError) return null;
      throw err;
    }
  }

  async download(userId: number, fileId: string, options: DownloadOptions = {}): Promise<DriveDownload> {
    const item = await this.drives.file(userId, fileId);
    // O_NOFOLLOW and the inode check close the window between the lstat walk and the open.
    const handle = await open(item.absolute, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ELOOP') throw new DrivePathError(`${item.id} leads through a link; links are not followed`);
      if (err.code === 'ENOENT') throw new DriveNotFoundError(`${item.id} was not found in the drive`);
      throw err;
    });
    const opened = await handle.stat();
    if (opened.ino !== item.stats.ino || opened.dev !== item.stats.dev || !opened.isFile()) {
      await handle.close();
      throw new DrivePathError(`${item.id} changed while it was opened`);
    }
    const file = this.describe({ ...item, stats: opened });
    if (options.maxBytes !== undefined && file.size > options.maxBytes) {
      await handle.close();
      throw tooLarge(file.name, options.maxBytes);
    }
    // The stream owns the handle from here and closes it (a bare fd would be closed twice, once by the handle's GC)
    const stream = createReadStream('', { fd: handle, autoClose: true });
    return { file, stream: limitBytes(stream, options.maxBytes, file.name) };
  }

  async close(): Promise<void> {
    for (const watch of this.watches.values()) watch.close();
    this.watches.clear();
  }

  /** For tests and health: channels open in this process. */
  get activeWatchCount(): number {
    return this.watches.size;
  }

  private describe(item: LocalItem): DriveFile {
    const { stats } = item;
    const isFolder = stats.isDirectory();
    const name = item.id === '' ? '/' : path.posix.basename(item.id);
    const parent = item.id.includes('/') ? path.posix.dirname(item.id) : '';
    return {
      id: item.id,
      name,
      mimeType: isFolder ? FOLDER_MIME_TYPE : mimeTypeFromName(name),
      size: isFolder ? 0 : stats.size,
      version: isFolder ? String(stats.mtimeMs) : `${stats.size}.${stats.mtimeMs}.${stats.ino}`,
      parentIds: item.id === '' ? [] : [parent],
      modifiedTime: stats.mtime.toISOString(),
      webLink: null,
      isFolder,
    };
  }
}

function joinId(folderId: string, name: string): string {
  return folderId === '' ? name : `${folderId}/${name}`;
}

function lstatSyncOrNull(p: string): Stats | null {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** Names a watch saw are kept this long after a whole read of their folder (a read from an older token lists the folder whole). */
const SEEN_NAMES_KEPT_MS = 5 * 60_000;

/** Entries a folder listing checks between two yields to the event loop. */
const SCAN_SLICE = 200;
