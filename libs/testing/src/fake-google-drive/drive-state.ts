import { createHash, randomBytes } from 'node:crypto';

export const GOOGLE_FOLDER_MIME = 'application/vnd.google-apps.folder';

export interface FakeFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: Buffer;
  /** Google's `version`: grows with every change to the file. */
  version: number;
  modifiedTime: Date;
  trashed: boolean;
}

export interface FakeChange {
  /** Position in the change log; page tokens are such positions. */
  seq: number;
  fileId: string;
  removed: boolean;
  time: Date;
}

export interface FakeChannel {
  id: string;
  resourceId: string;
  token: string | undefined;
  address: string;
  expiration: number;
  messageNumber: number;
}

/** A Drive v3 file resource as Google serialises it (int64 fields are strings). */
export function fileResource(file: FakeFile): Record<string, unknown> {
  const isFolder = file.mimeType === GOOGLE_FOLDER_MIME;
  return {
    kind: 'drive#file',
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    parents: file.parents,
    version: String(file.version),
    modifiedTime: file.modifiedTime.toISOString(),
    webViewLink: `https://drive.google.com/file/d/${file.id}/view`,
    trashed: file.trashed,
    ...(isFolder ? {} : { size: String(file.content.length), md5Checksum: createHash('md5').update(file.content).digest('hex') }),
  };
}

/**
 * The content of one Google account's drive: files and folders, a change
 * log with page tokens, and push channels on the changes collection.
 */
export class DriveState {
  readonly files = new Map<string, FakeFile>();
  readonly changes: FakeChange[] = [];
  readonly channels = new Map<string, FakeChannel>();
  /** Page tokens below this are refused as expired. */
  oldestValidToken = 1;
  private nextVersion = 1;

  constructor() {
    this.files.set('root', { id: 'root', name: 'My Drive', mimeType: GOOGLE_FOLDER_MIME, parents: [], content: Buffer.alloc(0), version: 1, modifiedTime: new Date(), trashed: false });
  }

  /** The page token for "from now on". */
  get startPageToken(): number {
    return this.changes.length + 1;
  }

  addFolder(name: string, parentId = 'root'): FakeFile {
    return this.put({ name, mimeType: GOOGLE_FOLDER_MIME, parents: [parentId], content: Buffer.alloc(0) });
  }

  addFile(name: string, content: Buffer | string, options: { parentId?: string; mimeType?: string } = {}): FakeFile {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    return this.put({ name, mimeType: options.mimeType ?? 'application/octet-stream', parents: [options.parentId ?? 'root'], content: bytes });
  }

  updateFile(id: string, content: Buffer | string): FakeFile {
    const file = this.mustGet(id);
    file.content = typeof content === 'string' ? Buffer.from(content) : content;
    file.version = this.bumpVersion();
    file.modifiedTime = new Date();
    this.record(id, false);
    return file;
  }

  trashFile(id: string): void {
    const file = this.mustGet(id);
    file.trashed = true;
    file.version = this.bumpVersion();
    this.record(id, false);
  }

  deleteFile(id: string): void {
    this.mustGet(id);
    this.files.delete(id);
    this.record(id, true);
  }

  /** Changes from position `token` on, at most `pageSize`. */
  changesFrom(token: number, pageSize: number): { changes: FakeChange[]; next: number | null } {
    const start = token - 1;
    const changes = this.changes.slice(start, start + pageSize);
    const nextIndex = start + changes.length;
    return { changes, next: nextIndex < this.changes.length ? nextIndex + 1 : null };
  }

  openChannel(request: { id: string; token?: string; address: string; expiration: number }): FakeChannel {
    const channel: FakeChannel = { ...request, token: request.token, resourceId: randomBytes(12).toString('base64url'), messageNumber: 0 };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** Live channels (expired ones are dropped as Google stops them). */
  liveChannels(now = Date.now()): FakeChannel[] {
    for (const [id, channel] of this.channels) if (channel.expiration <= now) this.channels.delete(id);
    return [...this.channels.values()];
  }

  private put(fields: Pick<FakeFile, 'name' | 'mimeType' | 'parents' | 'content'>): FakeFile {
    for (const parent of fields.parents) this.mustGet(parent);
    const file: FakeFile = { ...fields, id: randomBytes(16).toString('base64url'), version: this.bumpVersion(), modifiedTime: new Date(), trashed: false };
    this.files.set(file.id, file);
    this.record(file.id, false);
    return file;
  }

  private bumpVersion(): number {
    this.nextVersion += 1;
    return this.nextVersion;
  }

  private mustGet(id: string): FakeFile {
    const file = this.files.get(id);
    if (!file) throw new Error(`fake drive: no file ${id}`);
    return file;
  }

  private record(fileId: string, removed: boolean): void {
    this.changes.push({ seq: this.changes.length + 1, fileId, removed, time: new Date() });
  }
}
