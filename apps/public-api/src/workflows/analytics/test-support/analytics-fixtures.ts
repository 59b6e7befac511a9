import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { closeDatabase } from '@docflow/persistence';
import { createTestDatabase } from '@docflow/testing';
import { openPublicApiDatabase, type PublicApiDatabase } from '../../../data-source';
import type { TestBed } from '../../../test-support/test-app';

/**
 * A migrated database whose sessions run in `timeZone` (not UTC), so that a
 * test can tell UTC day buckets from local ones.
 */
export async function openTestBedInTimeZone(timeZone: string): Promise<TestBed> {
  const db = await createTestDatabase('docflow_public_api');
  const migrated = await openPublicApiDatabase(db.url);
  await migrated.query(`ALTER DATABASE "${db.name}" SET timezone TO '${timeZone.replace(/'/g, "''")}'`);
  await closeDatabase(migrated);
  const database = await openPublicApiDatabase(db.url);
  const outboxDir = await mkdtemp(path.join(os.tmpdir(), 'docflow-analytics-outbox-'));
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

export async function insertActivity(database: PublicApiDatabase, ownerId: number | null, name: string, level: 'user' | 'system' = 'user'): Promise<number> {
  const rows = (await database.query(`INSERT INTO activities (name, level, owner_id, workflow_definition) VALUES ($1, $2, $3, '{"nodes": [], "edges": []}'::jsonb) RETURNING id`, [
    name,
    level,
    ownerId,
  ])) as { id: number }[];
  return rows[0]!.id;
}

/** When something happened: an absolute ISO time, or a PostgreSQL interval before now(). */
export type When = { at: string } | { ago: string };

export interface StepFixture {
  nodeId: string;
  name: string;
  status: 'running' | 'completed' | 'failed' | 'skipped';
  /** Seconds after the execution started; no start time when absent. */
  offset?: number;
  /** Seconds it took (sets completed_at and duration_seconds). */
  duration?: number;
  error?: string;
  errorType?: string;
}

export interface ExecutionFixture {
  activityId: number;
  userId: number;
  status: 'queued' | 'running' | 'awaiting_user_input' | 'completed' | 'failed' | 'cancelled';
  created: When;
  /** Started one second after creation unless false. */
  started?: boolean;
  /** Seconds from start to completion (sets completed_at). */
  runSeconds?: number;
  error?: string;
  errorType?: string;
  failedNode?: string;
  totalCost?: number;
  resumeCount?: number;
  inputs?: Record<string, unknown>;
  steps?: StepFixture[];
}

/** Inserts an execution (and its steps) with exactly the timestamps asked for. */
export async function insertExecution(database: PublicApiDatabase, f: ExecutionFixture): Promise<number> {
  const at = 'at' in f.created ? f.created.at : null;
  const ago = 'ago' in f.created ? f.created.ago : null;
  const rows = (await database.query(
    `WITH t AS (SELECT coalesce($4::timestamptz, now() - $5::interval) AS created)
     INSERT INTO workflow_executions
            (activity_id, user_id, status, workflow_definition, inputs, error, error_type, failed_node, total_cost, resume_count,
             created_at, started_at, completed_at)
     SELECT $1, $2, $3, '{}'::jsonb, $6::jsonb, $7, $8, $9, $10, $11,
            t.created,
            CASE WHEN $12::boolean THEN t.created + interval '1 second' END,
            CASE WHEN $12::boolean AND $13::numeric IS NOT NULL THEN t.created + interval '1 second' + make_interval(secs => $13::numeric) END
       FROM t
     RETURNING id, started_at`,
    [
      f.activityId,
      f.userId,
      f.status,
      at,
      ago,
      JSON.stringify(f.inputs ?? {}),
      f.error ?? null,
      f.errorType ?? null,
      f.failedNode ?? null,
      f.totalCost ?? 0,
      f.resumeCount ?? 0,
      f.started ?? true,
      f.runSeconds ?? null,
    ],
  )) as { id: number; started_at: Date | null }[];
  const row = rows[0]!;
  for (const s of f.steps ?? []) {
    const base = row.started_at ?? new Date();
    const started = s.offset === undefined ? null : new Date(base.getTime() + s.offset * 1000);
    const completed = started && s.duration !== undefined ? new Date(started.getTime() + s.duration * 1000) : null;
    await database.query(
      `INSERT INTO workflow_execution_steps (execution_id, node_id, step_name, step_type, status, started_at, completed_at, duration_seconds, error, error_type)
       VALUES ($1, $2, $3, 'rest_api_task', $4, $5, $6, $7, $8, $9)`,
      [row.id, s.nodeId, s.name, s.status, started, completed, s.duration ?? null, s.error ?? null, s.errorType ?? null],
    );
  }
  return row.id;
}
