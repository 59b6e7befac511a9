import type { Readable } from 'node:stream';
import axios from 'axios';
import { silentLogger } from '@docflow/service-kit';
import { FakeGoogleDrive, HttpTarget } from '@docflow/testing';
import { TestSealer } from '../test-support/test-sealer';
import { parsePushHeaders } from '../watch-schedule';
import { InMemoryDriveGrantStore } from './grant-store';
import { GoogleDriveProvider } from './google-drive';

const REDIRECT = 'https://docflow.example/api/cloud/oauth/callback';
const ALICE = 7;
const BOB = 8;

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('GoogleDriveProvider against the loopback Google Drive', () => {
  let fake: FakeGoogleDrive;
  let grants: InMemoryDriveGrantStore;
  let sleeps: number[];
  let drive: GoogleDriveProvider;

  function provider(retry: { maxAttempts?: number; maxDelayMs?: number } = {}): GoogleDriveProvider {
    return new GoogleDriveProvider({
      apiUrl: fake.apiUrl,
      authUrl: fake.authUrl,
      tokenUrl: fake.tokenUrl,
      clientId: fake.clientId,
      clientSecret: 'docflow-test-secret',
      grants,
      sealer,
      logger: silentLogger,
      http: { retry, sleep: async (ms) => void sleeps.push(ms), random: () => 1 },
    });
  }

  /** The browser's part: open the authorization URL, let the fake consent, read the redirect back. */
  async function consent(authorizationUrl: string): Promise<URL> {
    const res = await axios.get(authorizationUrl, { maxRedirects: 0, validateStatus: () => true });
    expect(res.status).toBe(302);
    return new URL(String(res.headers['location']));
  }

  async function connect(userId: number): Promise<void> {
    const start = await drive.beginConnect(userId, REDIRECT);
    if (start.kind !== 'redirect') throw new Error('expected a redirect');
    const back = await consent(start.authorizationUrl);
    await drive.completeConnect(userId, { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! });
  }

  const sealer = new TestSealer();

  beforeEach(async () => {
    fake = await FakeGoogleDrive.start();
    grants = new InMemoryDriveGrantStore();
    sleeps = [];
    drive = provider();
  });

  afterEach(async () => {
    await drive.close();
    await fake.stop();
  });

  describe('the grant', () => {
    it('connects with the authorization code and PKCE S256, keeping the tokens sealed', async () => {
      expect(await drive.grantStatus(ALICE)).toEqual({ connected: false, needsReconnect: false });
      const start = await drive.beginConnect(ALICE, REDIRECT);
      if (start.kind !== 'redirect') throw new Error('expected a redirect');
      const url = new URL(start.authorizationUrl);
      expect(`${url.origin}${url.pathname}`).toBe(fake.authUrl);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        client_id: fake.clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge_method: 'S256',
        access_type: 'offline',
        scope: 'https://www.googleapis.com/auth/drive.readonly',
      });
      expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const back = await consent(start.authorizationUrl);
      await drive.completeConnect(ALICE, { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! });
      expect(await drive.grantStatus(ALICE)).toEqual({ connected: true, needsReconnect: false });
      const stored = grants.grants.get(ALICE)!;
      const { access_token } = sealer.open(stored.sealedTokens, ALICE);
      expect(access_token).toMatch(/^ya29\./);
      expect(stored.sealedTokens).not.toContain(access_token);
      expect(fake.oauth.tokenRequests).toEqual([{ grantType: 'authorization_code' }]);
    });

    it('refuses a state started by another user, or tampered with, before any code exchange', async () => {
      const start = await drive.beginConnect(ALICE, REDIRECT);
      if (start.kind !== 'redirect') throw new Error('expected a redirect');
      const back = await consent(start.authorizationUrl);
      const code = back.searchParams.get('code')!;
      const state = back.searchParams.get('state')!;
      await expect(drive.completeConnect(BOB, { code, state })).rejects.toMatchObject({ kind: 'oauth' });
      await expect(drive.completeConnect(ALICE, { code, state: `${state.slice(0, -2)}xx` })).rejects.toMatchObject({ kind: 'oauth' });
      expect(fake.oauth.tokenRequests).toEqual([]);
      expect(await drive.grantStatus(BOB)).toMatchObject({ connected: false });
    });

    it('refuses a code the drive does not take (used twice)', async () => {
      const start = await drive.beginConnect(ALICE, REDIRECT);
      if (start.kind !== 'redirect') throw new Error('expected a redirect');
      const back = await consent(start.authorizationUrl);
      const callback = { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! };
      await drive.completeConnect(ALICE, callback);
      await expect(drive.completeConnect(ALICE, callback)).rejects.toMatchObject({ kind: 'oauth' });
    });

    it('refreshes an expired access token after a 401 and goes on', async () => {
      await connect(ALICE);
      const folder = fake.addFolder('Inbox');
      fake.oauth.expireAccessTokens();
      expect((await drive.getFile(ALICE, folder.id)).name).toBe('Inbox');
      expect(fake.oauth.tokenRequests.map((r) => r.grantType)).toEqual(['authorization_code', 'refresh_token']);
      expect(fake.requestsTo('/drive/v3/files').length).toBe(2);
    });

    it('refreshes before calling when the stored token is about to expire', async () => {
      fake.oauth.accessTokenTtlSeconds = 30;
      await connect(ALICE);
      const folder = fake.addFolder('Inbox');
      await drive.getFile(ALICE, folder.id);
      expect(fake.oauth.tokenRequests.map((r) => r.grantType)).toEqual(['authorization_code', 'refresh_token']);
      expect(fake.requestsTo('/drive/v3/files').length).toBe(1);
    });

    it('marks a revoked grant as needing a reconnect', async () => {
      await connect(ALICE);
      const folder = fake.addFolder('Inbox');
      fake.oauth.revokeAll();
      await expect(drive.getFile(ALICE, folder.id)).rejects.toMatchObject({ kind: 'needs_reconnect' });
      expect(await drive.grantStatus(ALICE)).toEqual({ connected: false, needsReconnect: true });
      expect(grants.grants.get(ALICE)?.errorMessage).toMatch(/connect the drive again/);
      // Later calls fail at once, without asking Google.
      const before = fake.requests.length;
      await expect(drive.listChanges(ALICE, folder.id, '1')).rejects.toMatchObject({ kind: 'needs_reconnect' });
      expect(fake.requests.length).toBe(before);
    });

    it('acts for nobody without a grant', async () => {
      await expect(drive.getFile(BOB, 'root')).rejects.toMatchObject({ kind: 'needs_reconnect' });
    });

    it('revokes at the drive and forgets the tokens on disconnect', async () => {
      await connect(ALICE);
      await drive.disconnect(ALICE);
      expect(fake.requestsTo('/revoke')).toHaveLength(1);
      expect(await drive.grantStatus(ALICE)).toEqual({ connected: false, needsReconnect: false });
    });
  });

  describe('files', () => {
    beforeEach(() => connect(ALICE));

    it('reads metadata, finds a file by exact name in a folder and downloads its bytes', async () => {
      const inbox = fake.addFolder('Inbox');
      const other = fake.addFolder('Other');
      fake.addFile("O'Brien \\ report.pdf", 'elsewhere', { parentId: other.id, mimeType: 'application/pdf' });
      const file = fake.addFile("O'Brien \\ report.pdf", '%PDF-1.7 body', { parentId: inbox.id, mimeType: 'application/pdf' });
      expect(await drive.getFile(ALICE, file.id)).toMatchObject({ id: file.id, name: "O'Brien \\ report.pdf", mimeType: 'application/pdf', size: 13, parentIds: [inbox.id], isFolder: false });
      expect((await drive.findFile(ALICE, inbox.id, "O'Brien \\ report.pdf"))?.id).toBe(file.id);
      expect(await drive.findFile(ALICE, inbox.id, 'nothing.pdf')).toBeNull();
      const download = await drive.download(ALICE, file.id);
      expect(await text(download.stream)).toBe('%PDF-1.7 body');
      expect(await drive.prepareFolder(ALICE, inbox.id)).toMatchObject({ isFolder: true, name: 'Inbox' });
      await expect(drive.prepareFolder(ALICE, file.id)).rejects.toMatchObject({ kind: 'unsupported' });
    });

    it('answers not found for a missing or trashed file', async () => {
      const file = fake.addFile('gone.txt', 'x');
      fake.trashFile(file.id);
      await expect(drive.getFile(ALICE, file.id)).rejects.toMatchObject({ kind: 'not_found' });
      await expect(drive.getFile(ALICE, 'no-such-id')).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('refuses to download Google Docs editors files and files past the limit', async () => {
      const doc = fake.addFile('Notes', '', { mimeType: 'application/vnd.google-apps.document' });
      const big = fake.addFile('big.bin', Buffer.alloc(4096));
      await expect(drive.download(ALICE, doc.id)).rejects.toMatchObject({ kind: 'unsupported' });
      await expect(drive.download(ALICE, big.id, { maxBytes: 1024 })).rejects.toMatchObject({ kind: 'unsupported' });
      expect(fake.requests.filter((r) => r.query.get('alt') === 'media')).toHaveLength(0);
    });
  });

  describe('backoff', () => {
    beforeEach(() => connect(ALICE));

    it('waits what Retry-After says on a 429, then succeeds', async () => {
      const folder = fake.addFolder('Inbox');
      fake.fail({ status: 429, retryAfter: 2 });
      expect((await drive.getFile(ALICE, folder.id)).id).toBe(folder.id);
      expect(sleeps).toEqual([2000]);
    });

    it('backs off exponentially on 5xx without Retry-After, and on a rate-limit 403', async () => {
      const folder = fake.addFolder('Inbox');
      fake.fail({ status: 503, times: 2 });
      fake.fail({ status: 403, reason: 'userRateLimitExceeded' });
      await drive.getFile(ALICE, folder.id);
      expect(sleeps).toEqual([500, 1000, 2000]);
    });

    it('hands a long Retry-After to the caller instead of sleeping it', async () => {
      fake.fail({ status: 503, retryAfter: 120 });
      await expect(drive.getFile(ALICE, 'root')).rejects.toMatchObject({ kind: 'retryable', retryAfterMs: 120_000, status: 503 });
      expect(sleeps).toEqual([]);
    });

    it('gives up after the last attempt with a retryable error', async () => {
      fake.fail({ status: 500, times: 10 });
      await expect(drive.getFile(ALICE, 'root')).rejects.toMatchObject({ kind: 'retryable', status: 500 });
      expect(sleeps).toHaveLength(3);
    });
  });

  describe('changes and push channels', () => {
    let receiver: HttpTarget;

    beforeEach(async () => {
      await connect(ALICE);
      receiver = await HttpTarget.start();
      receiver.on('POST /drive-webhook', () => ({ status: 200, body: '' }));
    });

    afterEach(() => receiver.stop());

    it('lists the changes of the watched folder only (files, no folders) and gives the next start token', async () => {
      const inbox = fake.addFolder('Inbox');
      const other = fake.addFolder('Other');
      const token = await drive.getStartPageToken(ALICE, inbox.id);
      const a = fake.addFile('a.pdf', 'a', { parentId: inbox.id, mimeType: 'application/pdf' });
      fake.addFile('b.pdf', 'b', { parentId: other.id });
      fake.addFolder('sub', inbox.id);
      fake.updateFile(a.id, 'a2');
      const page = await drive.listChanges(ALICE, inbox.id, token);
      expect(page.changes.map((c) => [c.fileId, c.removed, c.file?.size])).toEqual([
        [a.id, false, 2],
        [a.id, false, 2],
      ]);
      expect(page.newStartPageToken).toBe(String(fake.drive.startPageToken));
      fake.trashFile(a.id);
      const next = await drive.listChanges(ALICE, inbox.id, page.newStartPageToken!);
      expect(next.changes).toEqual([{ fileId: a.id, removed: true, file: null }]);
    });

    it.each([410, 404, 400] as const)('reads a page token refused with %i as expired', async (status) => {
      const token = await drive.getStartPageToken(ALICE, 'root');
      fake.addFile('x.txt', 'x');
      fake.expirePageTokens(status);
      await expect(drive.listChanges(ALICE, 'root', token)).rejects.toMatchObject({ kind: 'page_token_expired' });
    });

    it('opens a channel that pushes sync, then change with the channel id and token, and stops it', async () => {
      const inbox = fake.addFolder('Inbox');
      const token = await drive.getStartPageToken(ALICE, inbox.id);
      const watch = await drive.watch(ALICE, { folderId: inbox.id, pageToken: token, channelId: 'ch-1', channelToken: 'tok-secret', address: receiver.url('/drive-webhook'), ttlMs: 3_600_000 });
      expect(watch.channelId).toBe('ch-1');
      expect(watch.resourceId).toEqual(expect.any(String));
      expect(watch.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(3_600_000);
      await receiver.waitForHits('/drive-webhook', 1);
      fake.addFile('new.pdf', 'x', { parentId: inbox.id });
      await receiver.waitForHits('/drive-webhook', 2);
      const [sync, change] = receiver.hitsOf('/drive-webhook').map((h) => parsePushHeaders(h.headers));
      expect(sync).toEqual({ channelId: 'ch-1', channelToken: 'tok-secret', resourceId: watch.resourceId, resourceState: 'sync', messageNumber: 1 });
      expect(change).toMatchObject({ channelId: 'ch-1', channelToken: 'tok-secret', resourceState: 'change', messageNumber: 2 });
      const watchCall = fake.requestsTo('/drive/v3/changes/watch')[0]!;
      expect(watchCall.query.get('pageToken')).toBe(token);
      await drive.stopWatch(ALICE, watch);
      expect(fake.drive.channels.size).toBe(0);
      // Stopping again (expired or stopped already) is not an error.
      await drive.stopWatch(ALICE, watch);
    });

    it('asks for at most 24 hours', async () => {
      await drive.watch(ALICE, {
        folderId: 'root',
        pageToken: await drive.getStartPageToken(ALICE, 'root'),
        channelId: 'ch-2',
        channelToken: 't',
        address: receiver.url('/drive-webhook'),
        ttlMs: 7 * 24 * 3_600_000,
      });
      const channel = fake.drive.channels.get('ch-2')!;
      expect(channel.expiration - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
      expect(channel.expiration - Date.now()).toBeGreaterThan(23 * 3_600_000);
    });
  });
});
