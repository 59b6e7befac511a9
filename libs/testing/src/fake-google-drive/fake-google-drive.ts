import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '@docflow/service-kit';
import { DriveState, fileResource, type FakeChannel, type FakeFile } from './drive-state';
import { parseDriveQuery } from './drive-query';
import { OAuthState } from './oauth-state';

export interface FakeGoogleDriveOptions {
  clientId?: string;
  clientSecret?: string;
}

/** A fault answered instead of the real reply, for the next `times` requests whose path starts with `pathPrefix`. */
export interface DriveFault {
  status: number;
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  /** Google's error `reason` (default by status: rateLimitExceeded, backendError...). */
  reason?: string;
  times?: number;
  /** Default `/drive/v3`. */
  pathPrefix?: string;
}

/** A push the fake delivered to a channel's address. */
export interface DeliveredPush {
  channelId: string;
  address: string;
  headers: Record<string, string>;
  /** The receiver's status, or 0 when it could not be reached. */
  status: number;
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: Buffer;
}

const DEFAULT_REASON: Record<number, string> = { 403: 'userRateLimitExceeded', 429: 'rateLimitExceeded', 500: 'backendError', 502: 'badGateway', 503: 'backendError' };

function googleError(status: number, reason: string, message: string, headers?: Record<string, string>, location?: string): Reply {
  const detail = { domain: 'global', reason, message, ...(location ? { locationType: 'parameter', location } : {}) };
  return { status, headers, body: { error: { code: status, message, errors: [detail] } } };
}

const invalidPageToken = (): Reply => googleError(400, 'invalid', 'Invalid Value', undefined, 'pageToken');

/**
 * A loopback Google Drive v3 and OAuth 2.0 server for tests: the consent
 * screen (`/o/oauth2/v2/auth`, which consents at once and redirects with a
 * code), the token and revoke endpoints (PKCE S256 checked), and the parts of
 * Drive v3 that Docflow uses: files.get (and `alt=media`), files.list with
 * `q`, changes.getStartPageToken, changes.list, changes.watch with push
 * notifications POSTed to the channel's address (`X-Goog-*` headers), and
 * channels.stop. Tests drive it through `drive` (add, update, trash files),
 * expire access or page tokens, revoke the grant, and queue faults (429 and
 * 5xx with Retry-After).
 */
export class FakeGoogleDrive {
  readonly drive = new DriveState();
  readonly oauth: OAuthState;
  readonly requests: FakeRequest[] = [];
  readonly pushes: DeliveredPush[] = [];
  /** Status answered for an expired page token (Google's guides name none for Drive: 410 by default, 404 and 400 to try the others). */
  expiredPageTokenStatus: 400 | 404 | 410 = 410;
  private readonly faults: Required<DriveFault>[] = [];
  private readonly pushWaiters = new Set<() => void>();
  private readonly inflight = new Set<Promise<void>>();

  private constructor(
    private readonly server: http.Server,
    options: FakeGoogleDriveOptions,
  ) {
    this.oauth = new OAuthState(options.clientId ?? 'docflow-test-client', options.clientSecret ?? 'docflow-test-secret');
  }

  static async start(options: FakeGoogleDriveOptions = {}): Promise<FakeGoogleDrive> {
    const holder: { self?: FakeGoogleDrive } = {};
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => holder.self?.serve(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    holder.self = new FakeGoogleDrive(server, options);
    return holder.self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  /** `CLOUD_DRIVE_API_URL` */
  get apiUrl(): string {
    return this.url;
  }
  /** `CLOUD_DRIVE_OAUTH_AUTH_URL` */
  get authUrl(): string {
    return `${this.url}/o/oauth2/v2/auth`;
  }
  /** `CLOUD_DRIVE_OAUTH_TOKEN_URL` */
  get tokenUrl(): string {
    return `${this.url}/token`;
  }
  get clientId(): string {
    return this.oauth.clientId;
  }

  /** Queues a fault; requests are answered by the oldest matching one first. */
  fail(fault: DriveFault): void {
    this.faults.push({ retryAfter: -1, reason: DEFAULT_REASON[fault.status] ?? 'error', times: 1, pathPrefix: '/drive/v3', ...fault });
  }

  /** Every page token handed out so far is refused from now on. */
  expirePageTokens(status: 400 | 404 | 410 = this.expiredPageTokenStatus): void {
    this.expiredPageTokenStatus = status;
    this.drive.oldestValidToken = this.drive.startPageToken;
  }

  addFolder(name: string, parentId?: string): FakeFile {
    return this.notifying(() => this.drive.addFolder(name, parentId));
  }
  addFile(name: string, content: Buffer | string, options?: { parentId?: string; mimeType?: string }): FakeFile {
    return this.notifying(() => this.drive.addFile(name, content, options));
  }
  updateFile(id: string, content: Buffer | string): FakeFile {
    return this.notifying(() => this.drive.updateFile(id, content));
  }
  trashFile(id: string): void {
    this.notifying(() => this.drive.trashFile(id));
  }

  /** Resolves once `count` pushes were delivered in all. */
  async waitForPushes(count: number, ms = 10_000): Promise<void> {
    if (this.pushes.length >= count) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (this.pushes.length < count) return;
        this.pushWaiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.pushWaiters.delete(check);
        reject(new Error(`${count} pushes not delivered within ${ms} ms (got ${this.pushes.length})`));
      }, ms);
      this.pushWaiters.add(check);
    });
  }

  requestsTo(pathPrefix: string): FakeRequest[] {
    return this.requests.filter((r) => r.path.startsWith(pathPrefix));
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private notifying<T>(mutate: () => T): T {
    const result = mutate();
    for (const channel of this.drive.liveChannels()) this.push(channel, 'change');
    return result;
  }

  private push(channel: FakeChannel, state: string): void {
    channel.messageNumber += 1;
    const headers: Record<string, string> = {
      'X-Goog-Channel-ID': channel.id,
      'X-Goog-Channel-Expiration': new Date(channel.expiration).toUTCString(),
      'X-Goog-Resource-ID': channel.resourceId,
      'X-Goog-Resource-URI': `${this.url}/drive/v3/changes?alt=json`,
      'X-Goog-Resource-State': state,
      'X-Goog-Message-Number': String(channel.messageNumber),
      ...(channel.token !== undefined ? { 'X-Goog-Channel-Token': channel.token } : {}),
    };
    const delivery = new Promise<void>((resolve) => {
      const req = http.request(channel.address, { method: 'POST', headers: { ...headers, 'content-length': '0' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(this.recordPush({ channelId: channel.id, address: channel.address, headers, status: res.statusCode ?? 0 })));
      });
      req.on('error', () => resolve(this.recordPush({ channelId: channel.id, address: channel.address, headers, status: 0 })));
      req.end();
    });
    this.inflight.add(delivery);
    void delivery.finally(() => this.inflight.delete(delivery));
  }

  private recordPush(push: DeliveredPush): void {
    this.pushes.push(push);
    for (const check of [...this.pushWaiters]) check();
  }

  private serve(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const request: FakeRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams };
    this.requests.push(request);
    let reply: Reply;
    try {
      reply = this.route(request, req.headers, body);
    } catch (err) {
      reply = googleError(500, 'backendError', errorMessage(err));
    }
    if (reply.raw) {
      res.writeHead(reply.status, reply.headers);
      res.end(reply.raw);
      return;
    }
    const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
    res.writeHead(reply.status, { ...(text ? { 'content-type': 'application/json; charset=UTF-8' } : {}), ...reply.headers });
    res.end(text);
  }

  private takeFault(path: string): Reply | undefined {
    const index = this.faults.findIndex((f) => path.startsWith(f.pathPrefix));
    if (index < 0) return undefined;
    const fault = this.faults[index]!;
    fault.times -= 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    const headers = fault.retryAfter >= 0 ? { 'Retry-After': String(fault.retryAfter) } : undefined;
    return googleError(fault.status, fault.reason, `Injected ${fault.status}`, headers);
  }

  private route(r: FakeRequest, headers: http.IncomingHttpHeaders, body: string): Reply {
    const fault = this.takeFault(r.path);
    if (fault) return fault;
    const key = `${r.method} ${r.path}`;
    if (key === 'GET /o/oauth2/v2/auth') return this.authorize(r.query);
    if (key === 'POST /token') {
      const basic = /^Basic (.+)$/i.exec(headers.authorization ?? '')?.[1];
      const answer = this.oauth.token(new URLSearchParams(body), basic);
      return { status: answer.status, body: answer.body };
    }
    if (key === 'POST /revoke') {
      const token = r.query.get('token') ?? new URLSearchParams(body).get('token') ?? '';
      return this.oauth.revoke(token) ? { status: 200, body: {} } : { status: 400, body: { error: 'invalid_token', error_description: 'Token expired or revoked' } };
    }
    if (!r.path.startsWith('/drive/v3/')) return googleError(404, 'notFound', `Not found: ${r.path}`);
    const bearer = /^Bearer (.+)$/i.exec(headers.authorization ?? '')?.[1];
    if (!bearer || !this.oauth.accessTokenValid(bearer)) {
      return { ...googleError(401, 'authError', 'Request had invalid authentication credentials.'), headers: { 'WWW-Authenticate': 'Bearer realm="https://accounts.google.com/"' } };
    }
    return this.driveRoute(r, key, body);
  }

  private authorize(query: URLSearchParams): Reply {
    const result = this.oauth.authorize(query);
    const redirect = query.get('redirect_uri');
    if ('error' in result || !redirect) return { status: 400, body: { error: 'error' in result ? result.error : 'invalid_request' } };
    const target = new URL(redirect);
    target.searchParams.set('code', result.code);
    const state = query.get('state');
    if (state !== null) target.searchParams.set('state', state);
    target.searchParams.set('scope', query.get('scope') ?? '');
    return { status: 302, headers: { Location: target.toString() } };
  }

  private driveRoute(r: FakeRequest, key: string, body: string): Reply {
    if (key === 'GET /drive/v3/changes/startPageToken') return { status: 200, body: { kind: 'drive#startPageToken', startPageToken: String(this.drive.startPageToken) } };
    if (key === 'GET /drive/v3/changes') return this.listChanges(r.query);
    if (key === 'POST /drive/v3/changes/watch') return this.watch(r.query, body);
    if (key === 'POST /drive/v3/channels/stop') {
      const { id, resourceId } = JSON.parse(body || '{}') as { id?: string; resourceId?: string };
      const channel = id === undefined ? undefined : this.drive.channels.get(id);
      if (!channel || channel.resourceId !== resourceId) return googleError(404, 'notFound', `Channel '${id ?? ''}' not found for project`);
      this.drive.channels.delete(channel.id);
      return { status: 204 };
    }
    if (key === 'GET /drive/v3/files') return this.listFiles(r.query);
    const fileMatch = /^\/drive\/v3\/files\/([^/]+)$/.exec(r.path);
    if (r.method === 'GET' && fileMatch) return this.getFile(decodeURIComponent(fileMatch[1]!), r.query);
    return googleError(404, 'notFound', `Not found: ${r.path}`);
  }

  private listChanges(query: URLSearchParams): Reply {
    const token = Number(query.get('pageToken'));
    if (!Number.isSafeInteger(token) || token < 1 || token > this.drive.startPageToken) return invalidPageToken();
    if (token < this.drive.oldestValidToken) {
      const status = this.expiredPageTokenStatus;
      return status === 400 ? invalidPageToken() : googleError(status, status === 410 ? 'deleted' : 'notFound', 'The page token is no longer valid.');
    }
    const pageSize = Math.min(Number(query.get('pageSize') ?? 100) || 100, 1000);
    const { changes, next } = this.drive.changesFrom(token, pageSize);
    return {
      status: 200,
      body: {
        kind: 'drive#changeList',
        ...(next !== null ? { nextPageToken: String(next) } : { newStartPageToken: String(this.drive.startPageToken) }),
        changes: changes.map((c) => {
          const file = this.drive.files.get(c.fileId);
          return { kind: 'drive#change', changeType: 'file', time: c.time.toISOString(), fileId: c.fileId, removed: c.removed || !file, ...(file && !c.removed ? { file: fileResource(file) } : {}) };
        }),
      },
    };
  }

  private watch(query: URLSearchParams, body: string): Reply {
    const token = Number(query.get('pageToken'));
    if (!Number.isSafeInteger(token) || token < this.drive.oldestValidToken) return invalidPageToken();
    const request = JSON.parse(body || '{}') as { id?: string; type?: string; address?: string; token?: string; expiration?: string | number };
    if (!request.id || request.type !== 'web_hook' || !request.address) return googleError(400, 'required', 'Required: id, type web_hook, address');
    if (this.drive.channels.has(request.id)) return googleError(400, 'channelIdNotUnique', 'Channel id not unique');
    const week = Date.now() + 7 * 24 * 3600 * 1000;
    const asked = Number(request.expiration ?? week);
    const channel = this.drive.openChannel({ id: request.id, token: request.token, address: request.address, expiration: Math.min(asked, week) });
    this.push(channel, 'sync');
    return {
      status: 200,
      body: { kind: 'api#channel', id: channel.id, resourceId: channel.resourceId, resourceUri: `${this.url}/drive/v3/changes?alt=json`, token: channel.token, expiration: String(channel.expiration) },
    };
  }

  private listFiles(query: URLSearchParams): Reply {
    let matches: FakeFile[];
    try {
      const filter = parseDriveQuery(query.get('q') ?? '');
      matches = [...this.drive.files.values()].filter((f) => f.id !== 'root' && filter(f));
    } catch (err) {
      return googleError(400, 'invalid', `Invalid Value: ${errorMessage(err)}`);
    }
    if ((query.get('orderBy') ?? '').includes('modifiedTime desc')) matches.sort((a, b) => b.modifiedTime.getTime() - a.modifiedTime.getTime());
    const pageSize = Math.min(Number(query.get('pageSize') ?? 100) || 100, 1000);
    return { status: 200, body: { kind: 'drive#fileList', incompleteSearch: false, files: matches.slice(0, pageSize).map(fileResource) } };
  }

  private getFile(id: string, query: URLSearchParams): Reply {
    const file = this.drive.files.get(id);
    if (!file) return googleError(404, 'notFound', `File not found: ${id}.`);
    if (query.get('alt') !== 'media') return { status: 200, body: fileResource(file) };
    if (file.mimeType.startsWith('application/vnd.google-apps.')) {
      return googleError(403, 'fileNotDownloadable', 'Only files with binary content can be downloaded. Use Export with Docs Editors files.');
    }
    return { status: 200, raw: file.content, headers: { 'content-type': file.mimeType, 'content-length': String(file.content.length) } };
  }
}
