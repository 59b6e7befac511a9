import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';
import { silentLogger } from '@docflow/service-kit';
import { FakeGoogleDrive } from '@docflow/testing';
import type { DriveNotification } from '../drive-provider';
import { InMemoryDriveGrantStore } from '../google/grant-store';
import { GoogleDriveProvider } from '../google/google-drive';
import { LocalDriveProvider } from '../local/local-drive';
import { TestSealer } from '../test-support/test-sealer';
import { driveEventPayload, type SettledFileEvent } from './drive-event';
import { FileSettler } from './file-settler';
import { InMemorySettleStore } from './settle-store';
import { SourceChangeReader, type PageTokenStore } from './source-changes';
import { subscriptionMatches } from './subscription-match';

class Tokens implements PageTokenStore {
  readonly saved: string[] = [];
  async savePageToken(_sourceId: number, pageToken: string): Promise<void> {
    this.saved.push(pageToken);
  }
}

describe('SourceChangeReader', () => {
  describe('local drive, end to end up to the matched event (what phase 2 wires to a workflow start)', () => {
    let root: string;
    let drive: LocalDriveProvider;
    const notifications: DriveNotification[] = [];

    beforeEach(async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'docflow-bus-'));
      drive = new LocalDriveProvider({ root, logger: silentLogger, rescanMs: 3_600_000, onNotification: (n) => void notifications.push(n) });
    });

    afterEach(async () => {
      await drive.close();
      await rm(root, { recursive: true, force: true });
    });

    it('emits one file_created per settled file however often it is notified, and the filter tells PDFs from text', async () => {
      let now = Date.now();
      const events: SettledFileEvent[] = [];
      const settler = new FileSettler({
        store: new InMemorySettleStore(),
        settleMs: 5000,
        logger: silentLogger,
        clock: () => new Date(now),
        recheck: (p) => drive.getFile(7, p.fileId),
        onEvent: (e) => void events.push(e),
      });
      const tokens = new Tokens();
      const reader = new SourceChangeReader({ provider: drive, settler, tokens, logger: silentLogger });
      const folder = await drive.prepareFolder(7, 'inbox');
      const source = { sourceId: 1, ownerId: 7, folderId: folder.id, pageToken: await drive.getStartPageToken(7, 'inbox') };
      await writeFile(path.join(root, '7', 'inbox', 'invoice.pdf'), '%PDF-1.4');
      await writeFile(path.join(root, '7', 'inbox', 'notes.txt'), 'hello');
      // The same change notified twice (a push delivered twice, a rescan): read twice.
      const first = await reader.read(source);
      expect(first).toMatchObject({ kind: 'read', observed: 2 });
      await reader.read({ ...source, pageToken: tokens.saved.at(-1)! });
      now += 5000;
      await settler.settleDue();
      now += 5000;
      await settler.settleDue();
      expect(events.map((e) => [e.eventType, e.file.name]).sort()).toEqual([
        ['file_created', 'invoice.pdf'],
        ['file_created', 'notes.txt'],
      ]);
      const rule = { event_types: ['file_created'], filter: { name: '*.pdf' } };
      const matched = events.filter((e) => subscriptionMatches(rule, e.eventType, driveEventPayload(e, { id: 1, folderId: 'inbox', folderName: 'Inbox' })));
      expect(matched.map((e) => e.file.name)).toEqual(['invoice.pdf']);
    });

    it('fails a source whose folder is gone', async () => {
      const reader = new SourceChangeReader({ provider: drive, settler: { observeChanges: async () => undefined }, tokens: new Tokens(), logger: silentLogger });
      expect(await reader.read({ sourceId: 1, ownerId: 7, folderId: 'nowhere', pageToken: 'local-1:0' })).toMatchObject({ kind: 'failed' });
    });
  });

  describe('google drive', () => {
    let fake: FakeGoogleDrive;
    let drive: GoogleDriveProvider;

    beforeEach(async () => {
      fake = await FakeGoogleDrive.start();
      drive = new GoogleDriveProvider({
        apiUrl: fake.apiUrl,
        authUrl: fake.authUrl,
        tokenUrl: fake.tokenUrl,
        clientId: fake.clientId,
        clientSecret: 'docflow-test-secret',
        grants: new InMemoryDriveGrantStore(),
        sealer: new TestSealer(),
        logger: silentLogger,
        http: { sleep: async () => undefined },
      });
      const start = await drive.beginConnect(7, 'https://docflow.example/cb');
      if (start.kind !== 'redirect') throw new Error('expected a redirect');
      const back = new URL(String((await axios.get(start.authorizationUrl, { maxRedirects: 0, validateStatus: () => true })).headers['location']));
      await drive.completeConnect(7, { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! });
    });

    afterEach(async () => {
      await drive.close();
      await fake.stop();
    });

    it('backs off during an outage and resumes from the saved page token', async () => {
      const inbox = fake.addFolder('Inbox');
      const tokens = new Tokens();
      const seen: string[] = [];
      const reader = new SourceChangeReader({ provider: drive, settler: { observeChanges: async (_s, changes) => void seen.push(...changes.map((c) => c.fileId)) }, tokens, logger: silentLogger });
      const source = { sourceId: 1, ownerId: 7, folderId: inbox.id, pageToken: await drive.getStartPageToken(7, inbox.id) };
      const a = fake.addFile('a.pdf', 'a', { parentId: inbox.id });
      fake.fail({ status: 503, retryAfter: 300 });
      expect(await reader.read(source)).toEqual({ kind: 'retry_later', retryAfterMs: 300_000, pageToken: source.pageToken, message: expect.stringContaining('503') });
      expect(tokens.saved).toEqual([]);
      const after = await reader.read(source);
      expect(after).toMatchObject({ kind: 'read', observed: 1 });
      expect(seen).toEqual([a.id]);
      expect(tokens.saved).toEqual([String(fake.drive.startPageToken)]);
    });

    it('resyncs from a new start token when the saved one is refused', async () => {
      const tokens = new Tokens();
      const reader = new SourceChangeReader({ provider: drive, settler: { observeChanges: async () => undefined }, tokens, logger: silentLogger });
      const old = await drive.getStartPageToken(7, 'root');
      fake.addFile('x.txt', 'x');
      fake.expirePageTokens(410);
      expect(await reader.read({ sourceId: 1, ownerId: 7, folderId: 'root', pageToken: old })).toEqual({ kind: 'resynced', pageToken: String(fake.drive.startPageToken) });
      expect(tokens.saved).toEqual([String(fake.drive.startPageToken)]);
    });

    it('asks for a reconnect when the grant was revoked', async () => {
      const reader = new SourceChangeReader({ provider: drive, settler: { observeChanges: async () => undefined }, tokens: new Tokens(), logger: silentLogger });
      const token = await drive.getStartPageToken(7, 'root');
      fake.oauth.revokeAll();
      fake.oauth.expireAccessTokens();
      expect(await reader.read({ sourceId: 1, ownerId: 7, folderId: 'root', pageToken: token })).toMatchObject({ kind: 'needs_reconnect' });
    });
  });
});
