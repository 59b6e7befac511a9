import type { Readable } from 'node:stream';

/** `CLOUD_DRIVE_PROVIDER` (runtime contract). */
export type DriveProviderKind = 'local' | 'google';

/** A file or folder as every provider describes it. */
export interface DriveFile {
  /** Google: the file id. Local: the path relative to the user's drive (`inbox/a.pdf`). */
  id: string;
  name: string;
  /** Google: the drive's own MIME type. Local: from the extension (the public API sniffs the content anyway). */
  mimeType: string;
  /** Bytes; 0 for folders. */
  size: number;
  /** Changes whenever the content does (Google `version`; local size and mtime). */
  version: string;
  /** Folders the file sits in (Google `parents`; local: the one folder). */
  parentIds: string[];
  /** ISO 8601. */
  modifiedTime: string;
  /** Where a person opens it (Google `webViewLink`); null for local files. */
  webLink: string | null;
  isFolder: boolean;
}

/** One entry of a change list. */
export interface DriveChange {
  fileId: string;
  /** Removed, trashed or no longer readable: nothing to emit. */
  removed: boolean;
  /** The file's current state; null when removed. */
  file: DriveFile | null;
}

/** One page of changes since a page token. */
export interface ChangePage {
  changes: DriveChange[];
  /** More changes follow: list again with it (it may also be saved as the source's page token). */
  nextPageToken?: string;
  /** The end was reached: save it as the source's `page_token` for the next notification. */
  newStartPageToken?: string;
}

/** What `watch` registers: the caller picks the channel id and secret token and stores them on the source. */
export interface WatchRequest {
  folderId: string;
  /** The source's saved page token (Google's changes.watch takes one). */
  pageToken: string;
  /** A fresh random id per watch (`watch_channel_id`). */
  channelId: string;
  /** A secret the drive echoes with each notification (`X-Goog-Channel-Token`); the receiver compares it timing-safely. */
  channelToken: string;
  /** The push receiver's public HTTPS address (`POST /api/event-bus/drive-webhook`); the local provider ignores it. */
  address: string;
  /** Requested lifetime; capped at 24 hours (spec 8). Default 24 hours. */
  ttlMs?: number;
}

export interface DriveWatch {
  channelId: string;
  /** The drive's id for the watched resource (`watch_resource_id`), needed to stop the channel. */
  resourceId: string;
  /** `watch_expiry`: renew about 2 hours before (see watch-schedule.ts). */
  expiresAt: Date;
}

/**
 * A push notification, as the Google push receiver reads it from the
 * `X-Goog-*` headers and as the local provider delivers it in process. It
 * says only "something changed on this channel": the receiver finds the
 * source by `channelId`, checks `channelToken`, and lists changes.
 */
export interface DriveNotification {
  channelId: string;
  channelToken: string | null;
  resourceId: string | null;
  /** `sync` (the channel was just created), `change`, or another Google state. */
  resourceState: string;
  messageNumber: number | null;
}

export interface GrantStatus {
  connected: boolean;
  /** A grant exists but was revoked or could not be refreshed: the user must connect again. */
  needsReconnect: boolean;
}

/** `connected`: nothing to do (local). `redirect`: send the user's browser to `authorizationUrl`. */
export type ConnectStart = { kind: 'connected' } | { kind: 'redirect'; authorizationUrl: string };

/** The query of the OAuth callback (`GET /api/cloud/oauth/callback?code&state`). */
export interface ConnectCallback {
  code: string;
  state: string;
}

export interface DownloadOptions {
  /** Bytes past this fail the stream with DriveUnsupportedError ("too large"); the file's announced size is checked first. */
  maxBytes?: number;
}

export interface DriveDownload {
  file: DriveFile;
  /** The content; the caller must consume or destroy it. */
  stream: Readable;
}

/**
 * One user's cloud drive, behind `CLOUD_DRIVE_PROVIDER`. Every call names
 * the user it acts for; a provider never acts without one. Errors are the
 * DriveError classes of drive-errors.ts.
 */
export interface DriveProvider {
  readonly kind: DriveProviderKind;

  /** `GET /cloud/oauth/status` (spec 4.10): local is always connected. */
  grantStatus(userId: number): Promise<GrantStatus>;
  /** Starts the authorization code flow with PKCE (S256); the state is bound to `userId` and to `redirectUri`. */
  beginConnect(userId: number, redirectUri: string): Promise<ConnectStart>;
  /** Checks the state against `userId`, exchanges the code and stores the sealed tokens. */
  completeConnect(userId: number, callback: ConnectCallback): Promise<void>;
  /** Forgets the user's tokens (and revokes them at the provider, best effort). */
  disconnect(userId: number): Promise<void>;

  /**
   * The folder a new source will watch, checked: the local provider creates
   * it when missing (runtime contract), Google answers DriveNotFoundError
   * for a missing one and DriveUnsupportedError for a file.
   */
  prepareFolder(userId: number, folderId: string): Promise<DriveFile>;
  /** A token for "changes from now on" in `folderId`. */
  getStartPageToken(userId: number, folderId: string): Promise<string>;
  /** Changes since `pageToken` of files directly inside `folderId` (folders themselves excluded). */
  listChanges(userId: number, folderId: string, pageToken: string): Promise<ChangePage>;
  /** Opens a push channel (at most 24 h); renewing is a new watch followed by `stopWatch` of the old one. */
  watch(userId: number, request: WatchRequest): Promise<DriveWatch>;
  /** Closes a channel; an unknown or expired one is not an error. */
  stopWatch(userId: number, watch: Pick<DriveWatch, 'channelId' | 'resourceId'>): Promise<void>;

  /** A file's or folder's metadata; DriveNotFoundError when missing or trashed. */
  getFile(userId: number, fileId: string): Promise<DriveFile>;
  /** The file named exactly `name` directly inside `folderId` (the most recently modified one if several), or null. */
  findFile(userId: number, folderId: string, name: string): Promise<DriveFile | null>;
  /** The file's content as a stream. */
  download(userId: number, fileId: string, options?: DownloadOptions): Promise<DriveDownload>;

  /** Stops watchers and frees connections. */
  close(): Promise<void>;
}

/** What reading one file needs (cloud_drive_fetch_task): the local provider, or GoogleDriveApi with a lent access token. */
export type DriveReader = Pick<DriveProvider, 'getFile' | 'findFile' | 'download'>;
