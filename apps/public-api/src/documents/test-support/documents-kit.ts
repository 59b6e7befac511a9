import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type express from 'express';
import request from 'supertest';
import type { PublicApi } from '../../app';
import { signAccessToken } from '../../identity';
import type { PublicApiConfig } from '../../platform';
import type { PublicApiDatabase } from '../../platform';
import { buildTestApi, openTestBed, recordingLogger, type LogLine, type TestBed, TEST_JWT_SECRET, testConfig } from '../../test-support/test-app';
import type { UserRole } from '../../identity';
import { UsersRepository } from '../../identity';
import type { DocumentView } from '../document-view';

export const SERVICE_KEY = 'documents-test-service-key-0123456789';

export interface Actor {
  id: number;
  username: string;
  auth: string;
}

/** A public API over a database, STORAGE_DIR and upload temp dir of its own, with alice, bob and admin. */
export interface DocumentsKit {
  bed: TestBed;
  api: PublicApi;
  app: express.Express;
  config: PublicApiConfig;
  storageDir: string;
  tempDir: string;
  lines: LogLine[];
  alice: Actor;
  bob: Actor;
  admin: Actor;
  close(): Promise<void>;
}

export async function createActor(database: PublicApiDatabase, username: string, role: UserRole = 'user'): Promise<Actor> {
  const inserted = await new UsersRepository(database).insert({ username, email: `${username}@docflow.test`, passwordHash: 'not-a-hash', role });
  if (!inserted.ok) throw new Error(`could not create ${username}`);
  const { token } = signAccessToken({ id: inserted.user.id, role }, { secret: TEST_JWT_SECRET, expiresInSeconds: 3600 });
  return { id: inserted.user.id, username, auth: `Bearer ${token}` };
}

export async function openDocumentsKit(env: Record<string, string> = {}): Promise<DocumentsKit> {
  const bed = await openTestBed();
  const root = await mkdtemp(path.join(os.tmpdir(), 'docflow-documents-test-'));
  const storageDir = path.join(root, 'storage');
  const tempDir = path.join(root, 'uploads');
  const config = testConfig({ STORAGE_DIR: storageDir, UPLOAD_TMP_DIR: tempDir, SERVICE_KEY, PUBLIC_BASE_URL: 'http://docs.test:1337', ...env });
  const lines: LogLine[] = [];
  const api = buildTestApi(bed, { config, logger: recordingLogger(lines) });
  const [alice, bob, admin] = [await createActor(bed.database, 'alice'), await createActor(bed.database, 'bob'), await createActor(bed.database, 'admin', 'super_admin')];
  return {
    bed,
    api,
    app: api.app,
    config,
    storageDir,
    tempDir,
    lines,
    alice,
    bob,
    admin,
    async close() {
      await api.documents.stop();
      await bed.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export interface UploadOptions {
  content: Buffer | string;
  filename: string;
  contentType?: string;
  /** `file` (default) with plain fields, or `files` with a `data` JSON field. */
  field?: 'file' | 'files';
  fields?: Record<string, string>;
}

/** POST /api/documents/upload as the actor. */
export function upload(app: express.Express, actor: Actor, options: UploadOptions): request.Test {
  const req = request(app).post('/api/documents/upload').set('authorization', actor.auth);
  for (const [name, value] of Object.entries(options.fields ?? {})) req.field(name, value);
  const content = typeof options.content === 'string' ? Buffer.from(options.content, 'utf8') : options.content;
  return req.attach(options.field ?? 'file', content, { filename: options.filename, contentType: options.contentType ?? 'application/octet-stream' });
}

export interface UploadBody extends DocumentView {
  data: DocumentView[];
  warning?: { code: string; used_bytes: number; quota_bytes: number; ratio: number };
}

export interface ErrorBody {
  error: { status: number; name: string; message: string; details: { errors?: string[] } & Record<string, unknown> };
}

/** Every file under dir, relative, hidden ones included. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** Collects a response body as bytes (supertest parses only text and JSON by default). */
export function binary(res: request.Response, callback: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

export async function download(app: express.Express, url: string, actor?: Actor): Promise<request.Response & { body: Buffer }> {
  const req = request(app).get(url).buffer(true).parse(binary);
  if (actor) req.set('authorization', actor.auth);
  return (await req) as request.Response & { body: Buffer };
}
