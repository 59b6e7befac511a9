import type { Readable } from 'node:stream';
import type { AxiosRequestConfig, AxiosResponse } from 'axios';
import { limitBytes, tooLarge } from '../byte-limit';
import { DriveNotFoundError, DriveProtocolError, DriveReconnectError, DriveUnsupportedError, PageTokenExpiredError } from '../drive-errors';
import type { ChangePage, DownloadOptions, DriveDownload, DriveFile, DriveWatch, WatchRequest } from '../drive-provider';
import { watchExpiry } from '../watch-schedule';
import { CHANGE_FIELDS, FILE_FIELDS, isGoogleNative, isTrashed, queryLiteral, toChangePage, toDriveFile } from './drive-resources';
import { googleLocation, googleMessage, googleReason, type GoogleHttp } from './google-http';

/** A user's current access token. */
export interface LentAccessToken {
  accessToken: string;
  /** Epoch ms. */
  expiresAt: number;
}

/**
 * Where the Drive calls get a user's access token: the grant store in the
 * public API (GoogleTokens), or the public API's internal token route in a
 * processor, which holds no refresh token (event-bus phase 2).
 */
export interface AccessTokenSource {
  /** A token valid now; `forceRefresh` after Google refused the last one with 401. */
  accessToken(userId: number, options?: { forceRefresh?: boolean }): Promise<LentAccessToken>;
  /** Google refused a freshly refreshed token too: the grant needs reconnecting. */
  refused(userId: number, message: string): Promise<void>;
}

/** Google's Drive v3 API, without the base URL's `/drive/v3`. */
export const GOOGLE_API_URL = 'https://www.googleapis.com';

/**
 * The Drive v3 calls of Docflow, acting for one user per call with the
 * token the AccessTokenSource lends: `changes.getStartPageToken`,
 * `changes.list`, `changes.watch`, `channels.stop`, `files.get`,
 * `files.list` and `alt=media` downloads. Google's answers become
 * DriveErrors; 429 and 5xx are retried by GoogleHttp.
 */
export class GoogleDriveApi {
  private readonly api: string;

  constructor(
    apiUrl: string,
    private readonly http: GoogleHttp,
    private readonly tokens: AccessTokenSource,
    private readonly clock: () => number = Date.now,
  ) {
    this.api = `${apiUrl.replace(/\/+$/, '')}/drive/v3`;
  }

  async getStartPageToken(userId: number, _folderId: string): Promise<string> {
    const res = await this.call<{ startPageToken?: unknown }>(userId, { method: 'GET', url: `${this.api}/changes/startPageToken` });
    const token = this.ok(res).startPageToken;
    if (typeof token !== 'string') throw new DriveProtocolError('Google Drive sent no startPageToken');
    return token;
  }

  async listChanges(userId: number, folderId: string, pageToken: string): Promise<ChangePage> {
    const res = await this.call(userId, {
      method: 'GET',
      url: `${this.api}/changes`,
      params: { pageToken, pageSize: 100, includeRemoved: true, restrictToMyDrive: false, spaces: 'drive', fields: CHANGE_FIELDS },
    });
    // Google's guides give no status for a page token it no longer takes; 410 Gone, 404 and 400 on pageToken are all read so.
    if (res.status === 410 || res.status === 404 || (res.status === 400 && googleLocation(res.data) === 'pageToken')) {
      throw new PageTokenExpiredError(`Google Drive no longer accepts the saved page token (${res.status})`);
    }
    return toChangePage(this.ok(res), folderId);
  }

  async watch(userId: number, request: WatchRequest): Promise<DriveWatch> {
    const expiresAt = watchExpiry(new Date(this.clock()), request.ttlMs);
    const res = await this.call<{ id?: unknown; resourceId?: unknown; expiration?: unknown }>(userId, {
      method: 'POST',
      url: `${this.api}/changes/watch`,
      params: { pageToken: request.pageToken, includeRemoved: true, spaces: 'drive' },
      data: { id: request.channelId, type: 'web_hook', address: request.address, token: request.channelToken, expiration: String(expiresAt.getTime()) },
    });
    const body = this.ok(res);
    if (body.id !== request.channelId || typeof body.resourceId !== 'string') throw new DriveProtocolError('Google Drive answered the watch without its channel');
    const granted = Number(body.expiration);
    return { channelId: request.channelId, resourceId: body.resourceId, expiresAt: Number.isFinite(granted) && granted > 0 ? new Date(Math.min(granted, expiresAt.getTime())) : expiresAt };
  }

  async stopWatch(userId: number, watch: Pick<DriveWatch, 'channelId' | 'resourceId'>): Promise<void> {
    const res = await this.call(userId, { method: 'POST', url: `${this.api}/channels/stop`, data: { id: watch.channelId, resourceId: watch.resourceId } });
    // A channel that expired or was stopped already is what we wanted.
    if (res.status === 404) return;
    this.ok(res);
  }

  async getFile(userId: number, fileId: string): Promise<DriveFile> {
    if (!fileId) throw new DriveNotFoundError('A file id is required');
    const res = await this.call(userId, { method: 'GET', url: `${this.api}/files/${encodeURIComponent(fileId)}`, params: { fields: FILE_FIELDS, supportsAllDrives: true } });
    const body = this.ok(res, fileId);
    if (isTrashed(body)) throw new DriveNotFoundError(`${fileId} is in the trash`);
    return toDriveFile(body);
  }

  async findFile(userId: number, folderId: string, name: string): Promise<DriveFile | null> {
    const q = `${queryLiteral(folderId)} in parents and name = ${queryLiteral(name)} and trashed = false and mimeType != 'application/vnd.google-apps.folder'`;
    const res = await this.call<{ files?: unknown }>(userId, {
      method: 'GET',
      url: `${this.api}/files`,
      params: { q, orderBy: 'modifiedTime desc', pageSize: 10, fields: `files(${FILE_FIELDS})`, supportsAllDrives: true, includeItemsFromAllDrives: true },
    });
    const files = this.ok(res).files;
    if (!Array.isArray(files)) throw new DriveProtocolError('Google Drive sent a file list without files');
    return files.length > 0 ? toDriveFile(files[0]) : null;
  }

  async download(userId: number, fileId: string, options: DownloadOptions = {}): Promise<DriveDownload> {
    const file = await this.getFile(userId, fileId);
    if (file.isFolder) throw new DriveUnsupportedError(`${file.name} is a folder`);
    if (isGoogleNative(file.mimeType)) throw new DriveUnsupportedError(`${file.name} is a Google Docs editors file (${file.mimeType}) and has no content to download`);
    if (options.maxBytes !== undefined && file.size > options.maxBytes) throw tooLarge(file.name, options.maxBytes);
    const res = await this.call<Readable>(userId, { method: 'GET', url: `${this.api}/files/${encodeURIComponent(fileId)}`, params: { alt: 'media', supportsAllDrives: true }, responseType: 'stream' });
    if (res.status !== 200) {
      const text = await readSmall(res.data);
      let data: unknown = text;
      try {
        data = JSON.parse(text);
      } catch {
        // Not JSON: the text itself is the message.
      }
      this.ok({ ...res, data } as AxiosResponse<Record<string, unknown>>, fileId);
      throw new DriveProtocolError(`Google Drive answered the download with ${res.status}`, res.status);
    }
    return { file, stream: limitBytes(res.data, options.maxBytes, file.name) };
  }

  /** A request with the user's access token; after a 401, one more with a refreshed token; a second 401 needs a reconnect. */
  private async call<T = Record<string, unknown>>(userId: number, config: AxiosRequestConfig): Promise<AxiosResponse<T>> {
    let tokens = await this.tokens.accessToken(userId);
    for (let attempt = 1; ; attempt += 1) {
      const res = await this.http.send<T>({ ...config, headers: { ...config.headers, authorization: `Bearer ${tokens.accessToken}` } });
      if (res.status !== 401) return res;
      if (config.responseType === 'stream') (res.data as Readable).destroy();
      if (attempt >= 2) {
        const message = 'Google Drive refused the access token after a refresh; connect the drive again';
        await this.tokens.refused(userId, message);
        throw new DriveReconnectError(message);
      }
      tokens = await this.tokens.accessToken(userId, { forceRefresh: true });
    }
  }

  /** The body of a 2xx answer; other statuses as DriveErrors. */
  private ok<T>(res: AxiosResponse<T>, fileId?: string): T {
    if (res.status >= 200 && res.status < 300) return res.data;
    const reason = googleReason(res.data);
    if (res.status === 404) throw new DriveNotFoundError(fileId ? `${fileId} was not found in the drive` : 'Not found in the drive');
    if (res.status === 403) {
      if (reason === 'fileNotDownloadable') throw new DriveUnsupportedError('The file has no content to download');
      if (reason === 'insufficientPermissions' || reason === 'authError') throw new DriveReconnectError('The drive access lacks the needed permission; connect the drive again');
      // Any other refusal of one file reads as "not there" for this user.
      throw new DriveNotFoundError(fileId ? `${fileId} is not accessible` : 'Not accessible in the drive');
    }
    throw new DriveProtocolError(`Google Drive answered ${googleMessage(res.status, res.data)}`, res.status);
  }
}

async function readSmall(stream: Readable, max = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > max) break;
    chunks.push(buf);
  }
  stream.destroy();
  return Buffer.concat(chunks).toString('utf8');
}
