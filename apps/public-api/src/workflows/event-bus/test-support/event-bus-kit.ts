import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type express from 'express';
import request from 'supertest';
import { CloudDriveConfig } from '@docflow/cloud-drive';
import { Broker } from '@docflow/messaging';
import { loadConfig, silentLogger } from '@docflow/service-kit';
import { createTestVhost, type TestVhost } from '@docflow/testing';
import type { PublicApi } from '../../../app';
import { type Actor, createActor } from '../../../documents/test-support/documents-kit';
import { FakeRouter } from '../../../test-support/fake-router';
import { buildTestApi, openTestBed, recordingLogger, type LogLine, type TestBed, testConfig } from '../../../test-support/test-app';
import { executionEnv, ROUTER_KEY } from '../../executions/test-support/execution-api';

export const KIT_SERVICE_KEY = 'event-bus-test-service-key-0123456789';

/** A public API with the event bus started over a database, a RabbitMQ vhost, a drive root and a router of its own. */
export interface EventBusKit {
  bed: TestBed;
  api: PublicApi;
  app: express.Express;
  router: FakeRouter;
  broker: Broker;
  vhost: TestVhost;
  driveRoot: string;
  lines: LogLine[];
  alice: Actor;
  bob: Actor;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** `listen`: serve the app on a loopback port that PUBLIC_BASE_URL names, so that a drive can push to it. */
export async function openEventBusKit(drive: Record<string, string> = {}, env: Record<string, string> = {}, options: { listen?: boolean } = {}): Promise<EventBusKit> {
  const port = options.listen ? await freePort() : undefined;
  const router = await FakeRouter.start(ROUTER_KEY);
  const vhost = await createTestVhost('docflow_event_bus');
  const broker = Broker.connect({ url: vhost.url, logger: silentLogger, name: 'event-bus-test', reconnect: { initialMs: 50, maxMs: 500 } });
  await broker.ready(10000);
  const bed = await openTestBed();
  const root = await mkdtemp(path.join(os.tmpdir(), 'docflow-event-bus-'));
  const driveRoot = path.join(root, 'drive');
  const config = testConfig({
    ...executionEnv(router.url),
    SERVICE_KEY: KIT_SERVICE_KEY,
    STORAGE_DIR: path.join(root, 'storage'),
    UPLOAD_TMP_DIR: path.join(root, 'uploads'),
    PUBLIC_BASE_URL: port ? `http://127.0.0.1:${port}` : 'http://docs.test:1337',
    MAX_RUNNING_EXECUTIONS_PER_USER: '1000',
    ...env,
  });
  const cloudDrive = loadConfig(CloudDriveConfig, { CLOUD_DRIVE_LOCAL_ROOT: driveRoot, CLOUD_DRIVE_SETTLE_SECONDS: '0', ...drive });
  const lines: LogLine[] = [];
  const api = buildTestApi(bed, { config, logger: recordingLogger(lines), broker, cloudDrive });
  const server = port ? http.createServer(api.app) : undefined;
  if (server) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await api.eventBus.start({ tickMs: 3_600_000 });
  const [alice, bob] = [await createActor(bed.database, 'alice'), await createActor(bed.database, 'bob')];
  return {
    bed,
    api,
    app: api.app,
    router,
    broker,
    vhost,
    driveRoot,
    lines,
    alice,
    bob,
    async close() {
      await api.eventBus.stop();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await api.documents.stop();
      await broker.close(3000);
      await vhost.drop();
      await bed.close();
      await router.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it returns a value (not undefined), failing with `what` after `ms`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** An activity whose input schema needs the event's file inputs (spec 4.10). */
export function eventDefinition(): Record<string, unknown> {
  return {
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: { label: 'Start', task_type: 'custom_task', config: {} } },
      { id: 'fetch', type: 'cloud_drive_fetch_task', position: { x: 200, y: 0 }, data: { label: 'Fetch', config: { file_id: '{{file_id}}' } } },
      { id: 'end', type: 'end', position: { x: 400, y: 0 }, data: { label: 'End', task_type: 'custom_task', config: {} } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'fetch' },
      { id: 'e2', source: 'fetch', target: 'end' },
    ],
    input_schema: {
      type: 'object',
      properties: { file_id: { type: 'string' }, file_name: { type: 'string' }, file_document_id: { type: 'integer' } },
      required: ['file_id', 'file_name', 'file_document_id'],
    },
  };
}

export async function createActivity(kit: EventBusKit, actor: Actor): Promise<number> {
  const res = await request(kit.app)
    .post('/api/activities')
    .set('authorization', actor.auth)
    .send({ data: { name: 'Drive intake', workflow_definition: eventDefinition() } });
  if (res.status !== 201) throw new Error(`activity not created: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { data: { id: number } }).data.id;
}

export interface LogEntry {
  id: number;
  event_id: string;
  event_type: string;
  status: string;
  subscriptions_matched: number;
  workflows_triggered: { subscription_id: number; execution_id: number }[];
  payload: Record<string, unknown>;
  error_message: string | null;
  event_source: { id: number; drive_item_name: string | null };
}

export async function eventLogs(kit: EventBusKit, actor: Actor, query = 'limit=100'): Promise<LogEntry[]> {
  const res = await request(kit.app).get(`/api/event-bus/logs?${query}`).set('authorization', actor.auth);
  if (res.status !== 200) throw new Error(`logs: ${res.status}`);
  return (res.body as { data: LogEntry[] }).data;
}

/** Waits until `count` events are recorded and none is still open. */
export function settledLogs(kit: EventBusKit, actor: Actor, count: number, query?: string): Promise<LogEntry[]> {
  return eventually(`${count} finished events`, async () => {
    const logs = await eventLogs(kit, actor, query);
    return logs.length >= count && logs.every((l) => l.status !== 'received' && l.status !== 'processing') ? logs : undefined;
  });
}
