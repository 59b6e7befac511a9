import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type express from 'express';
import request from 'supertest';
import { createMailer } from '@docflow/mail';
import { Broker } from '@docflow/messaging';
import { databaseHealthCheck } from '@docflow/persistence';
import { Metrics, silentLogger } from '@docflow/service-kit';
import { createTestVhost, type TestVhost } from '@docflow/testing';
import { buildPublicApi, type PublicApi } from '../../app';
import type { PublicApiConfig } from '../../platform';
import { type Actor, createActor, SERVICE_KEY } from '../../documents/test-support/documents-kit';
import { openTestBed, type TestBed, testConfig } from '../../test-support/test-app';
import type { RagStatusView } from '../rag.service';
import { FakeLlmService } from './fake-llm-service';

export { SERVICE_KEY };

/** A public API with its RAG worker consuming a vhost of its own, over a database, storage and fake LLM service of its own. */
export interface RagKit {
  bed: TestBed;
  vhost: TestVhost;
  broker: Broker;
  api: PublicApi;
  app: express.Express;
  config: PublicApiConfig;
  llm: FakeLlmService;
  alice: Actor;
  bob: Actor;
  admin: Actor;
  close(): Promise<void>;
}

export async function openRagKit(env: Record<string, string> = {}): Promise<RagKit> {
  const [bed, vhost, llm] = await Promise.all([openTestBed(), createTestVhost('docflow_rag'), FakeLlmService.start()]);
  const root = await mkdtemp(path.join(os.tmpdir(), 'docflow-rag-test-'));
  const config = testConfig({
    STORAGE_DIR: path.join(root, 'storage'),
    UPLOAD_TMP_DIR: path.join(root, 'uploads'),
    SERVICE_KEY,
    PUBLIC_BASE_URL: 'http://docs.test:1337',
    LLM_SERVICE_URL: llm.url,
    AMQP_URL: vhost.url,
    RAG_TEXT_WAIT_SECONDS: '60',
    ...env,
  });
  const broker = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'rag-test', reconnect: { initialMs: 50, maxMs: 500 } });
  const api = buildPublicApi({
    config,
    logger: silentLogger,
    metrics: new Metrics('public-api'),
    database: bed.database,
    mailer: createMailer({ outboxDir: bed.outboxDir, from: 'Docflow <no-reply@docflow.local>', logger: silentLogger }),
    health: [databaseHealthCheck(bed.database)],
    broker,
  });
  await api.rag.start();
  await broker.ready(10000);
  const [alice, bob, admin] = [await createActor(bed.database, 'alice'), await createActor(bed.database, 'bob'), await createActor(bed.database, 'admin', 'super_admin')];
  return {
    bed,
    vhost,
    broker,
    api,
    app: api.app,
    config,
    llm,
    alice,
    bob,
    admin,
    async close() {
      await api.rag.stop(3000);
      await api.documents.stop();
      await broker.close(3000);
      await llm.stop();
      await bed.close();
      await vhost.drop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every 50 ms until it returns a value, failing after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The document's RAG status through the internal read. */
export async function ragStatus(kit: RagKit, documentId: number): Promise<RagStatusView> {
  const res = await request(kit.app).get(`/api/internal/documents/${documentId}/rag-status`).set('x-service-key', SERVICE_KEY);
  if (res.status !== 200) throw new Error(`rag-status answered ${res.status}: ${res.text}`);
  return res.body as RagStatusView;
}

/** Waits until the document's indexing finished (completed or failed) and returns its status. */
export function settled(kit: RagKit, documentId: number, timeoutMs = 30000): Promise<RagStatusView> {
  return until(
    `document ${documentId} to finish indexing`,
    async () => {
      const s = await ragStatus(kit, documentId);
      return s.rag_processing_status === 'completed' || s.rag_processing_status === 'failed' ? s : undefined;
    },
    timeoutMs,
  );
}
