import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import axios from 'axios';
import { GoogleDriveApi, GoogleDriveProvider, GoogleHttp, InMemoryDriveGrantStore, LocalDriveProvider, type DriveTokenSealer } from '@docflow/cloud-drive';
import { INTERNAL_DOCUMENT_IMPORT_PATH, INTERNAL_DRIVE_ACCESS_TOKEN_PATH } from '@docflow/contracts';
import { silentLogger } from '@docflow/service-kit';
import { FakeGoogleDrive, HttpTarget, type TargetHit, type TargetReply } from '@docflow/testing';
import { createOutboundClient } from '@docflow/outbound-http';
import { testMeta } from '../../test-support/engine-harness';
import { buildExecutors } from '../build-executors';
import type { NodeContext } from '../executor';
import { createCloudDriveFetchExecutor, type CloudDriveFetchDeps } from './cloud-drive-fetch.executor';
import { DocumentImportClient } from './document-import.client';
import { LentAccessTokens } from './lent-access-tokens';

const SERVICE_KEY = 'test-service-key-0123456789';
const ALICE = 7;
const BOB = 8;

/** `runUserId` null: a job that names no user. */
function ctx(config: Record<string, unknown>, runUserId: number | null = ALICE): NodeContext {
  return {
    executionKey: 'execution:31',
    jobId: 'wf_31',
    executionId: 31,
    runUserId: runUserId ?? undefined,
    nodeId: 'fetch',
    nodeType: 'task',
    taskType: 'cloud_drive_fetch_task',
    label: 'Fetch',
    config,
    rawConfig: config,
    scope: { user_id: BOB },
    inputs: { user_id: BOB },
    signal: new AbortController().signal,
    logger: silentLogger,
  };
}

/** The public API's import route as phase 2 will answer it. */
function importRoute(hit: TargetHit): TargetReply {
  const query = new URLSearchParams(hit.query);
  if (hit.headers['x-service-key'] !== SERVICE_KEY) return { status: 401, body: { error: 'unauthorized', message: 'service credentials required' } };
  return {
    status: 201,
    body: {
      document_id: 900 + Number(query.get('user_id')),
      file_url: `http://127.0.0.1:1337/api/documents/${900 + Number(query.get('user_id'))}/download`,
      mime_type: 'application/pdf',
      file_size: Buffer.byteLength(hit.body),
      filename: query.get('file_name'),
    },
  };
}

describe('cloud_drive_fetch_task', () => {
  let api: HttpTarget;
  let importer: DocumentImportClient;

  beforeEach(async () => {
    api = await HttpTarget.start();
    api.on(`POST ${INTERNAL_DOCUMENT_IMPORT_PATH}`, importRoute);
    importer = new DocumentImportClient({ baseUrl: api.url(''), serviceKey: SERVICE_KEY });
  });

  afterEach(async () => {
    importer.close();
    await api.stop();
  });

  describe('with the local provider', () => {
    let root: string;
    let drive: LocalDriveProvider;
    let deps: CloudDriveFetchDeps;

    beforeEach(async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'docflow-fetch-'));
      drive = new LocalDriveProvider({ root, logger: silentLogger, onNotification: () => undefined });
      deps = { drive, importer };
      for (const [user, content] of [
        [ALICE, '%PDF-1.4 alice'],
        [BOB, '%PDF-1.4 bob'],
      ] as const) {
        await mkdir(path.join(root, String(user), 'inbox'), { recursive: true });
        await writeFile(path.join(root, String(user), 'inbox', 'report.pdf'), content);
      }
      await writeFile(path.join(root, String(BOB), 'inbox', 'only-bob.pdf'), 'bob only');
    });

    afterEach(async () => {
      await drive.close();
      await rm(root, { recursive: true, force: true });
    });

    it('direct mode: stores the file as a document of the run user and outputs the fields of 2.7', async () => {
      const out = await createCloudDriveFetchExecutor(deps)(ctx({ file_id: 'inbox/report.pdf' }));
      expect(out).toEqual({
        output: { file_url: 'http://127.0.0.1:1337/api/documents/907/download', file_id: 'inbox/report.pdf', file_name: 'report.pdf', mime_type: 'application/pdf', size: 14, document_id: 907 },
      });
      const [hit] = api.hitsOf(INTERNAL_DOCUMENT_IMPORT_PATH);
      expect(hit!.body).toBe('%PDF-1.4 alice');
      expect(Object.fromEntries(new URLSearchParams(hit!.query))).toEqual({ user_id: '7', file_name: 'report.pdf', source: 'cloud_drive_fetch', source_ref: 'inbox/report.pdf' });
      expect(hit!.headers['content-type']).toBe('application/pdf');
      expect(hit!.headers['idempotency-key']).toMatch(/^execution:31:fetch:inbox\/report\.pdf:/);
    });

    it('is what the registry runs for the task type once the processor has drive clients', async () => {
      const registry = buildExecutors({ outbound: createOutboundClient(), mailer: { send: async () => ({ messageId: '', accepted: [], rejected: [] }) }, restDefaultTimeoutSeconds: 30, drive: deps });
      await expect(registry.run('cloud_drive_fetch_task', ctx({ file_id: 'inbox/report.pdf' }), testMeta)).resolves.toMatchObject({ output: { document_id: 907 } });
    });

    it('search mode: finds the file by name in the folder', async () => {
      const out = await createCloudDriveFetchExecutor(deps)(ctx({ folder_id: 'inbox', file_name: 'report.pdf' }));
      expect(out).toMatchObject({ output: { file_id: 'inbox/report.pdf', document_id: 907 } });
      await expect(createCloudDriveFetchExecutor(deps)(ctx({ folder_id: 'inbox', file_name: 'missing.pdf' }))).rejects.toMatchObject({
        errorType: 'validation_error',
        message: 'No file named missing.pdf in folder inbox',
      });
    });

    it('acts for the signed run user only, whatever inputs, scope or config say', async () => {
      const out = await createCloudDriveFetchExecutor(deps)(ctx({ file_id: 'inbox/report.pdf', user_id: BOB }));
      expect(out).toMatchObject({ output: { document_id: 907 } });
      expect(api.hitsOf(INTERNAL_DOCUMENT_IMPORT_PATH)[0]!.body).toBe('%PDF-1.4 alice');
      // Bob's own file is not in Alice's drive, and no path leads there.
      await expect(createCloudDriveFetchExecutor(deps)(ctx({ file_id: 'inbox/only-bob.pdf' }))).rejects.toMatchObject({ errorType: 'validation_error' });
      await expect(createCloudDriveFetchExecutor(deps)(ctx({ file_id: '../8/inbox/only-bob.pdf' }))).rejects.toMatchObject({ errorType: 'configuration_error' });
      await expect(createCloudDriveFetchExecutor(deps)(ctx({ file_id: `${root}/8/inbox/only-bob.pdf` }))).rejects.toMatchObject({ errorType: 'configuration_error' });
      expect(api.hitsOf(INTERNAL_DOCUMENT_IMPORT_PATH)).toHaveLength(1);
    });

    it('refuses a run that acts for no user before touching any drive', async () => {
      await expect(createCloudDriveFetchExecutor(deps)(ctx({ file_id: 'inbox/report.pdf' }, null))).rejects.toMatchObject({
        errorType: 'configuration_error',
        message: 'this run acts for no user, so it has no drive to fetch from',
      });
      expect(api.hits).toHaveLength(0);
    });

    it('needs one mode; an unresolved template counts as missing, and file_id wins over search mode', async () => {
      const run = createCloudDriveFetchExecutor(deps);
      await expect(run(ctx({}))).rejects.toMatchObject({ errorType: 'configuration_error', message: 'Give file_id (direct mode), or folder_id and file_name (search mode)' });
      await expect(run(ctx({ folder_id: 'inbox' }))).rejects.toMatchObject({ errorType: 'configuration_error' });
      await expect(run(ctx({ file_id: '{{trigger.file_id}}' }))).rejects.toMatchObject({ errorType: 'configuration_error' });
      await expect(run(ctx({ file_id: 'inbox/report.pdf', folder_id: 'inbox', file_name: 'nothing.pdf' }))).resolves.toMatchObject({ output: { file_name: 'report.pdf' } });
    });

    it('refuses a folder and a file past the size limit, storing nothing', async () => {
      await expect(createCloudDriveFetchExecutor(deps)(ctx({ file_id: 'inbox' }))).rejects.toMatchObject({ errorType: 'validation_error', message: 'inbox is a folder, not a file' });
      await expect(createCloudDriveFetchExecutor({ ...deps, maxFileBytes: 4 })(ctx({ file_id: 'inbox/report.pdf' }))).rejects.toMatchObject({ errorType: 'validation_error' });
      expect(api.hits).toHaveLength(0);
    });

    it("reads the import route's refusals", async () => {
      const run = createCloudDriveFetchExecutor(deps);
      api.on(`POST ${INTERNAL_DOCUMENT_IMPORT_PATH}`, () => ({ status: 413, body: { error: 'quota_exceeded', message: 'storage quota exceeded' } }));
      await expect(run(ctx({ file_id: 'inbox/report.pdf' }))).rejects.toMatchObject({ errorType: 'validation_error', message: expect.stringContaining('quota_exceeded') });
      api.on(`POST ${INTERNAL_DOCUMENT_IMPORT_PATH}`, () => ({ status: 201, body: { document_id: 'x' } }));
      await expect(run(ctx({ file_id: 'inbox/report.pdf' }))).rejects.toMatchObject({ errorType: 'http_error' });
      api.on(`POST ${INTERNAL_DOCUMENT_IMPORT_PATH}`, () => ({ status: 502, body: 'bad gateway' }));
      await expect(run(ctx({ file_id: 'inbox/report.pdf' }))).rejects.toMatchObject({ errorType: 'http_error', message: '502 bad gateway' });
      const wrongKey = new DocumentImportClient({ baseUrl: api.url(''), serviceKey: 'wrong' });
      api.on(`POST ${INTERNAL_DOCUMENT_IMPORT_PATH}`, importRoute);
      await expect(createCloudDriveFetchExecutor({ drive, importer: wrongKey })(ctx({ file_id: 'inbox/report.pdf' }))).rejects.toMatchObject({ errorType: 'configuration_error' });
      wrongKey.close();
    });
  });

  describe('with the google provider and a lent access token', () => {
    let fake: FakeGoogleDrive;
    let lender: GoogleDriveProvider;
    let http: GoogleHttp;
    let deps: CloudDriveFetchDeps;

    const sealer: DriveTokenSealer = {
      seal: (fields, owner) => Buffer.from(JSON.stringify({ owner, fields })).toString('base64url'),
      open: (sealed, owner) => {
        const value = JSON.parse(Buffer.from(sealed, 'base64url').toString()) as { owner: number; fields: Record<string, string> };
        if (value.owner !== owner) throw new Error('another owner');
        return value.fields;
      },
    };

    beforeEach(async () => {
      fake = await FakeGoogleDrive.start();
      lender = new GoogleDriveProvider({
        apiUrl: fake.apiUrl,
        authUrl: fake.authUrl,
        tokenUrl: fake.tokenUrl,
        clientId: fake.clientId,
        clientSecret: 'docflow-test-secret',
        grants: new InMemoryDriveGrantStore(),
        sealer,
        logger: silentLogger,
      });
      const start = await lender.beginConnect(ALICE, 'https://docflow.example/cb');
      if (start.kind !== 'redirect') throw new Error('expected a redirect');
      const back = new URL(String((await axios.get(start.authorizationUrl, { maxRedirects: 0, validateStatus: () => true })).headers['location']));
      await lender.completeConnect(ALICE, { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! });
      // The public API's token route as phase 2 will answer it.
      api.on(`POST ${INTERNAL_DRIVE_ACCESS_TOKEN_PATH}`, async (hit) => {
        if (hit.headers['x-service-key'] !== SERVICE_KEY) return { status: 401, body: { error: 'unauthorized' } };
        const { user_id, force_refresh } = JSON.parse(hit.body) as { user_id: number; force_refresh?: boolean };
        if ((await lender.grantStatus(user_id)).connected === false) return { status: 409, body: { error: 'drive_not_connected', message: 'not connected' } };
        const token = await lender.accessToken(user_id, { forceRefresh: force_refresh === true });
        return { status: 200, body: { access_token: token.accessToken, expires_at: new Date(token.expiresAt).toISOString() } };
      });
      http = new GoogleHttp();
      deps = { drive: new GoogleDriveApi(fake.apiUrl, http, new LentAccessTokens({ baseUrl: api.url(''), serviceKey: SERVICE_KEY, logger: silentLogger })), importer };
    });

    afterEach(async () => {
      http.close();
      await lender.close();
      await fake.stop();
    });

    it('fetches by file id and by name in a folder with the user token the public API lends', async () => {
      const inbox = fake.addFolder('Inbox');
      const file = fake.addFile('scan.pdf', '%PDF-1.7 google', { parentId: inbox.id, mimeType: 'application/pdf' });
      const run = createCloudDriveFetchExecutor(deps);
      expect(await run(ctx({ file_id: file.id }))).toMatchObject({ output: { file_id: file.id, file_name: 'scan.pdf', size: 15, document_id: 907 } });
      expect(await run(ctx({ folder_id: inbox.id, file_name: 'scan.pdf' }))).toMatchObject({ output: { file_id: file.id } });
      expect(api.hitsOf(INTERNAL_DOCUMENT_IMPORT_PATH).map((h) => h.body)).toEqual(['%PDF-1.7 google', '%PDF-1.7 google']);
      // One lent token served both runs.
      expect(api.hitsOf(INTERNAL_DRIVE_ACCESS_TOKEN_PATH)).toHaveLength(1);
    });

    it('asks for a refreshed token after Google refused the lent one', async () => {
      const file = fake.addFile('a.txt', 'text', { mimeType: 'text/plain' });
      const run = createCloudDriveFetchExecutor(deps);
      await run(ctx({ file_id: file.id }));
      fake.oauth.expireAccessTokens();
      await run(ctx({ file_id: file.id }));
      expect(api.hitsOf(INTERNAL_DRIVE_ACCESS_TOKEN_PATH).map((h) => JSON.parse(h.body) as unknown)).toEqual([{ user_id: ALICE }, { user_id: ALICE, force_refresh: true }]);
    });

    it('fails with configuration_error for a user without a connected drive', async () => {
      await expect(createCloudDriveFetchExecutor(deps)(ctx({ file_id: 'anything' }, BOB))).rejects.toMatchObject({
        errorType: 'configuration_error',
        message: 'The cloud drive is not connected for this user',
      });
    });
  });
});
