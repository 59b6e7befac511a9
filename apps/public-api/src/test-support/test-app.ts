import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type express from 'express';
import { createMailer, Mailer } from '@docflow/mail';
import { closeDatabase, databaseHealthCheck } from '@docflow/persistence';
import { loadConfig, Logger, LogMeta, Metrics } from '@docflow/service-kit';
import { createTestDatabase, TEST_SECRETS, TestDatabase } from '@docflow/testing';
import { buildPublicApi, PublicApi, PublicApiDeps } from '../app';
import { PublicApiConfig } from '../platform';
import { openPublicApiDatabase, PublicApiDatabase } from '../data-source';

export const TEST_JWT_SECRET = TEST_SECRETS.JWT_SECRET;

export function testConfig(env: Record<string, string> = {}): PublicApiConfig {
  return loadConfig(PublicApiConfig, { NODE_ENV: 'test', ...TEST_SECRETS, ...env });
}

export interface LogLine {
  level: string;
  message: string;
  meta?: LogMeta;
}

/** A logger that keeps its lines so tests can check what was (and was not) logged. */
export function recordingLogger(lines: LogLine[] = []): Logger {
  const at = (level: string) => (message: string, meta?: LogMeta) => lines.push({ level, message, meta });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return logger;
}

/** A migrated database of its own for one test file. */
export interface TestBed {
  db: TestDatabase;
  database: PublicApiDatabase;
  outboxDir: string;
  close(): Promise<void>;
}

export async function openTestBed(): Promise<TestBed> {
  const db = await createTestDatabase('docflow_public_api');
  const database = await openPublicApiDatabase(db.url);
  const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'docflow-public-api-outbox-'));
  return {
    db,
    database,
    outboxDir,
    async close() {
      await closeDatabase(database);
      await db.drop();
      await rm(outboxDir, { recursive: true, force: true });
    },
  };
}

export interface TestAppOptions {
  config?: PublicApiConfig;
  mailer?: Mailer;
  logger?: Logger;
  features?: PublicApiDeps['features'];
  broker?: PublicApiDeps['broker'];
  cloudDrive?: PublicApiDeps['cloudDrive'];
}

export function buildTestApi(bed: TestBed, options: TestAppOptions = {}): PublicApi {
  const logger = options.logger ?? recordingLogger();
  return buildPublicApi({
    config: options.config ?? testConfig(),
    logger,
    metrics: new Metrics('public-api'),
    database: bed.database,
    mailer: options.mailer ?? createMailer({ outboxDir: bed.outboxDir, from: 'Docflow <no-reply@docflow.local>', logger }),
    health: [databaseHealthCheck(bed.database)],
    features: options.features,
    broker: options.broker,
    cloudDrive: options.cloudDrive,
  });
}

export function buildTestApp(bed: TestBed, options: TestAppOptions = {}): express.Express {
  return buildTestApi(bed, options).app;
}
