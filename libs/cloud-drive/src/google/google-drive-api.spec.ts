import type { Readable } from 'node:stream';
import axios from 'axios';
import { silentLogger } from '@docflow/service-kit';
import { FakeGoogleDrive } from '@docflow/testing';
import { TestSealer } from '../test-support/test-sealer';
import { InMemoryDriveGrantStore } from './grant-store';
import { GoogleDriveApi, type AccessTokenSource } from './google-drive-api';
import { GoogleDriveProvider } from './google-drive';
import { GoogleHttp } from './google-http';

/**
 * The workflow processor's path: it holds no refresh token and reads files
 * with access tokens the public API lends it (here the provider plays the
 * public API's internal route).
 */
describe('GoogleDriveApi with a lent access token', () => {
  let fake: FakeGoogleDrive;
  let lender: GoogleDriveProvider;
  let http: GoogleHttp;

  beforeEach(async () => {
    fake = await FakeGoogleDrive.start();
    lender = new GoogleDriveProvider({
      apiUrl: fake.apiUrl,
      authUrl: fake.authUrl,
      tokenUrl: fake.tokenUrl,
      clientId: fake.clientId,
      clientSecret: 'docflow-test-secret',
      grants: new InMemoryDriveGrantStore(),
      sealer: new TestSealer(),
      logger: silentLogger,
    });
    const start = await lender.beginConnect(7, 'https://docflow.example/cb');
    if (start.kind !== 'redirect') throw new Error('expected a redirect');
    const back = new URL(String((await axios.get(start.authorizationUrl, { maxRedirects: 0, validateStatus: () => true })).headers['location']));
    await lender.completeConnect(7, { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! });
    http = new GoogleHttp({ sleep: async () => undefined });
  });

  afterEach(async () => {
    http.close();
    await lender.close();
    await fake.stop();
  });

  it('reads and downloads, asking for a fresh token once after a 401', async () => {
    const file = fake.addFile('a.txt', 'hello', { mimeType: 'text/plain' });
    const asked: boolean[] = [];
    const source: AccessTokenSource = {
      accessToken: (userId, options) => (asked.push(options?.forceRefresh === true), lender.accessToken(userId, options)),
      refused: jest.fn(async () => undefined),
    };
    const api = new GoogleDriveApi(fake.apiUrl, http, source);
    fake.oauth.expireAccessTokens();
    const download = await api.download(7, file.id);
    const chunks: Buffer[] = [];
    for await (const c of download.stream as Readable) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('hello');
    expect(asked).toEqual([false, true, false]);
    expect(source.refused).not.toHaveBeenCalled();
  });

  it('gives up with needs_reconnect when even a refreshed token is refused', async () => {
    const file = fake.addFile('a.txt', 'hello');
    const source: AccessTokenSource = { accessToken: async () => ({ accessToken: 'ya29.stale', expiresAt: Date.now() + 60_000 }), refused: jest.fn(async () => undefined) };
    const api = new GoogleDriveApi(fake.apiUrl, http, source);
    await expect(api.getFile(7, file.id)).rejects.toMatchObject({ kind: 'needs_reconnect' });
    expect(source.refused).toHaveBeenCalledWith(7, expect.stringMatching(/connect the drive again/));
  });
});
