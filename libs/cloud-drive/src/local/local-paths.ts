import { lstatSync, type Stats } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { DriveNotFoundError, DrivePathError } from '../drive-errors';

const MAX_ID_LENGTH = 1024;

/** A folder or file inside one user's local drive, checked. */
export interface LocalItem {
  /** The id as the API shows it: the relative path with `/`, `''` for the drive's root. */
  id: string;
  /** Absolute path on this machine; never shown to a client. */
  absolute: string;
  stats: Stats;
}

/**
 * The normalised id of `raw` (a folder_id or file_id of the local provider),
 * or DrivePathError: ids are paths relative to the user's drive, written
 * with `/`; absolute paths, drive letters, backslashes, NUL and `..` are
 * refused (runtime contract: "never outside it"). `.` and empty segments
 * are dropped, so `''`, `.` and `./` name the drive's root.
 */
export function normaliseLocalId(raw: unknown): string {
  if (typeof raw !== 'string') throw new DrivePathError('A drive path must be a string');
  if (raw.length > MAX_ID_LENGTH) throw new DrivePathError(`A drive path may have at most ${MAX_ID_LENGTH} characters`);
  if (raw.includes('\0')) throw new DrivePathError('A drive path must not contain NUL characters');
  if (raw.includes('\\')) throw new DrivePathError('A drive path uses / between folders, not \\');
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw new DrivePathError('A drive path must be relative to your drive, not absolute');
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new DrivePathError('A drive path must not contain ..');
  return segments.join('/');
}

/**
 * Users' drives under one root: user N's drive is `<root>/<N>/`. Every
 * path is checked component by component with lstat, so a symbolic link
 * anywhere below the user's folder is refused rather than followed (a link
 * could lead out of the drive); the root itself is the operator's and may
 * be a link.
 */
export class LocalDriveRoot {
  readonly root: string;

  constructor(root: string) {
    if (!path.isAbsolute(root)) throw new Error('CLOUD_DRIVE_LOCAL_ROOT must be resolved to an absolute path');
    this.root = path.normalize(root);
  }

  userFolder(userId: number): string {
    if (!Number.isSafeInteger(userId) || userId <= 0) throw new DrivePathError('A drive belongs to a user id (positive integer)');
    return path.join(this.root, String(userId));
  }

  /** The folder `folderId` (the drive's root for `''`); `create` makes missing folders (a new source's folder). */
  async folder(userId: number, folderId: unknown, options: { create?: boolean } = {}): Promise<LocalItem> {
    const item = await this.walk(userId, normaliseLocalId(folderId), options.create === true);
    if (!item.stats.isDirectory()) throw new DrivePathError(`${item.id || '/'} is not a folder`);
    return item;
  }

  /** The regular file `fileId`. */
  async file(userId: number, fileId: unknown): Promise<LocalItem> {
    const id = normaliseLocalId(fileId);
    if (id === '') throw new DrivePathError('A file id must name a file');
    const item = await this.walk(userId, id, false);
    if (!item.stats.isFile()) throw new DrivePathError(`${id} is not a file`);
    return item;
  }

  /** The file or folder `itemId`. */
  async item(userId: number, itemId: unknown): Promise<LocalItem> {
    return this.walk(userId, normaliseLocalId(itemId), false);
  }

  private async walk(userId: number, id: string, create: boolean): Promise<LocalItem> {
    const userFolder = this.userFolder(userId);
    if (create) await mkdir(userFolder, { recursive: true });
    let current = userFolder;
    let stats = lstatOrNull(current);
    if (!stats) throw new DriveNotFoundError('The drive has no such item');
    for (const segment of id === '' ? [] : id.split('/')) {
      current = path.join(current, segment);
      stats = lstatOrNull(current);
      if (!stats && create) {
        await mkdir(current).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw err;
        });
        stats = lstatOrNull(current);
      }
      if (!stats) throw new DriveNotFoundError(`${id} was not found in the drive`);
      if (stats.isSymbolicLink()) throw new DrivePathError(`${id} leads through a link; links are not followed`);
    }
    return { id, absolute: current, stats: stats! };
  }
}

/**
 * A synchronous lstat: a few microseconds of this thread on a local disk,
 * where a promised one costs a thread-pool round trip and its callbacks
 * several times over (a download walks three or four components).
 */
function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}
