import { createHash, randomBytes } from 'node:crypto';
import type { PublicApiDatabase } from '../../../platform';

export interface SeededData {
  documentId: number;
  activityId: number;
  executionId: number;
  jobId: string;
  classificationJobId: string;
  conversationId: number;
}

const hex64 = () => createHash('sha256').update(randomBytes(16)).digest('hex');

/**
 * One row in every table of the public API that keeps a user's data (test
 * support for issue #18): the user's document (uploaded by the test, so its
 * file is in storage) gets a collection, chunks and an import; an activity
 * gets an execution with a timeline, a webhook, a schedule and an event
 * source with a subscription and a log; agents, chatbots, squads,
 * conversations, prompts, Data Shield settings and a drive grant.
 */
export async function seedUserData(db: PublicApiDatabase, userId: number, documentId: number, tag: string): Promise<SeededData> {
  const one = async <T>(sql: string, params: unknown[]): Promise<T> => ((await db.query(sql, params)) as T[])[0]!;
  const collection = await one<{ id: number }>('INSERT INTO collections (name, owner_id) VALUES ($1, $2) RETURNING id', [`${tag} papers`, userId]);
  await db.query('INSERT INTO collection_documents (collection_id, document_id) VALUES ($1, $2)', [collection.id, documentId]);
  await db.query(`INSERT INTO rag_chunks (document_id, owner_id, visibility, chunk_index, content) VALUES ($1, $2, 'user', 0, $3), ($1, $2, 'user', 1, $3)`, [documentId, userId, `${tag} chunk text`]);
  await db.query("INSERT INTO prompts (title, type, level, owner_id) VALUES ($1, 'extraction', 'user', $2)", [`${tag} invoice fields`, userId]);
  const classificationJobId = `cls_${tag}_${randomBytes(3).toString('hex')}`;
  await db.query("INSERT INTO classification_jobs (job_id, user_id, collection_id, job_type, document_ids) VALUES ($1, $2, $3, 'classification', $4)", [
    classificationJobId,
    userId,
    collection.id,
    JSON.stringify([documentId]),
  ]);
  await db.query('INSERT INTO document_imports (user_id, idempotency_key, document_id) VALUES ($1, $2, $3)', [userId, `${tag}-import`, documentId]);

  const definition = JSON.stringify({ nodes: [{ id: 'start', type: 'custom_task' }], edges: [] });
  const activity = await one<{ id: number }>("INSERT INTO activities (name, status, level, owner_id, workflow_definition) VALUES ($1, 'active', 'user', $2, $3) RETURNING id", [
    `${tag} flow`,
    userId,
    definition,
  ]);
  const jobId = `wf_${tag}_${randomBytes(3).toString('hex')}`;
  const execution = await one<{ id: number }>(
    `INSERT INTO workflow_executions (activity_id, user_id, status, workflow_definition, inputs, outputs, job_id, started_at, completed_at)
     VALUES ($1, $2, 'completed', $3, $4, $5, $6, now() - interval '1 minute', now()) RETURNING id`,
    [activity.id, userId, definition, JSON.stringify({ customer: `${tag} customer` }), JSON.stringify({ total: 42 }), jobId],
  );
  await db.query(
    `INSERT INTO workflow_execution_steps (execution_id, node_id, step_name, status, started_at, completed_at, result_summary)
     VALUES ($1, 'start', 'Start', 'completed', now() - interval '1 minute', now() - interval '30 seconds', 'started'),
            ($1, 'finish', 'Finish', 'completed', now() - interval '30 seconds', now(), 'finished')`,
    [execution.id],
  );
  await db.query(`INSERT INTO webhooks (owner_id, activity_id, name, secret_hash, allowed_mime_types) VALUES ($1, $2, $3, $4, '[]'::jsonb)`, [userId, activity.id, `${tag} hook`, hex64()]);
  await db.query("INSERT INTO workflow_schedules (owner_id, activity_id, name, cron_expression, is_active) VALUES ($1, $2, $3, '0 * * * *', false)", [userId, activity.id, `${tag} hourly`]);
  const source = await one<{ id: number }>("INSERT INTO event_sources (owner_id, name, source_type, config, is_active) VALUES ($1, $2, 'cloud_drive', '{}'::jsonb, false) RETURNING id", [
    userId,
    `${tag} inbox`,
  ]);
  await db.query('INSERT INTO event_subscriptions (owner_id, event_source_id, activity_id, name) VALUES ($1, $2, $3, $4)', [userId, source.id, activity.id, `${tag} on new file`]);
  await db.query("INSERT INTO event_logs (event_id, owner_id, event_source_id, source_type, event_type, payload) VALUES ($1, $2, $3, 'cloud_drive', 'file_created', $4)", [
    `evt_${tag}_${randomBytes(3).toString('hex')}`,
    userId,
    source.id,
    JSON.stringify({ name: `${tag}.pdf` }),
  ]);
  await db.query("INSERT INTO cloud_drive_grants (user_id, sealed_tokens, status) VALUES ($1, 'sealed-drive-tokens', 'connected')", [userId]);

  const agent = await one<{ id: number }>('INSERT INTO agents (owner_id, name, slug) VALUES ($1, $2, $3) RETURNING id', [userId, `${tag} helper`, `${tag}-helper-${randomBytes(3).toString('hex')}`]);
  const conversation = await one<{ id: number }>('INSERT INTO agent_conversations (session_id, owner_id, agent_id, title) VALUES ($1, $2, $3, $4) RETURNING id', [
    `sess_${tag}_${randomBytes(4).toString('hex')}`,
    userId,
    agent.id,
    `${tag} chat`,
  ]);
  await db.query("INSERT INTO agent_messages (conversation_id, role, content) VALUES ($1, 'user', $2), ($1, 'assistant', $3)", [conversation.id, `${tag} asks`, `${tag} is answered`]);
  await db.query('INSERT INTO chatbots (owner_id, name, slug, api_key_hash) VALUES ($1, $2, $3, $4)', [userId, `${tag} bot`, `${tag}-bot-${randomBytes(3).toString('hex')}`, hex64()]);
  await db.query('INSERT INTO squads (owner_id, name, slug) VALUES ($1, $2, $3)', [userId, `${tag} squad`, `${tag}-squad-${randomBytes(3).toString('hex')}`]);
  await db.query("INSERT INTO composer_confirmations (id, user_id, tool, arguments_hash, expires_at) VALUES ($1, $2, 'create_activity', $3, now() + interval '5 minutes')", [
    `cc_${tag}_${randomBytes(4).toString('hex')}`,
    userId,
    hex64(),
  ]);
  await db.query("INSERT INTO data_shield_detectors (owner_id, kind, name, entity_type, pattern) VALUES ($1, 'pattern', $2, 'POLICY_NUMBER', 'PN-[0-9]{6}')", [userId, `${tag} policy`]);
  await db.query("INSERT INTO data_shield_packs (owner_id, pack) VALUES ($1, 'insurance')", [userId]);
  await db.query("INSERT INTO data_shield_subject_settings (kind, subject_id, owner_id) VALUES ('agent', $1, $2)", [agent.id, userId]);
  await seedProcessorRows(db, execution.id, jobId, tag);
  return { documentId, activityId: activity.id, executionId: execution.id, jobId, classificationJobId, conversationId: conversation.id };
}

/** Every table with a column naming a user (user_id, owner_id, actor_user_id), from the catalogue, so that a new table is covered too. */
export async function userColumns(db: PublicApiDatabase): Promise<{ table: string; column: string }[]> {
  const rows = (await db.query(
    `SELECT table_name AS table, column_name AS column FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name IN ('user_id', 'owner_id', 'actor_user_id') ORDER BY table_name, column_name`,
  )) as { table: string; column: string }[];
  return rows;
}

/**
 * The workflow processor's checkpoint and parked-run tables (its migrations
 * 1766000000000 and 1764000000230, in the database both services share),
 * with only the columns the public API's deletion and this test use: the
 * public API's test database has none of the processor's tables otherwise.
 */
export async function createProcessorTables(db: PublicApiDatabase): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS workflow_node_runs (execution_key text NOT NULL, node_id text NOT NULL, output jsonb, PRIMARY KEY (execution_key, node_id))`);
  await db.query(`CREATE TABLE IF NOT EXISTS workflow_wakeups (execution_key text PRIMARY KEY, job jsonb NOT NULL)`);
}

/** Processor rows of one execution (when its tables exist): checkpoints under both keys it may use, and a parked run. */
export async function seedProcessorRows(db: PublicApiDatabase, executionId: number, jobId: string, tag: string): Promise<void> {
  const [t] = (await db.query("SELECT to_regclass('workflow_node_runs') IS NOT NULL AS present")) as { present: boolean }[];
  if (!t?.present) return;
  const output = JSON.stringify({ text: `${tag} node output` });
  await db.query(`INSERT INTO workflow_node_runs (execution_key, node_id, output) VALUES ($1, 'start', $3), ($2, 'start', $3)`, [`execution:${executionId}`, `job:${jobId}`, output]);
  await db.query('INSERT INTO workflow_wakeups (execution_key, job) VALUES ($1, $2)', [
    `execution:${executionId}`,
    JSON.stringify({ job_id: jobId, payload: { inputs: { customer: `${tag} customer` } } }),
  ]);
}

/** The processor's rows of some executions, as `table: count` for the tables that hold any. */
export async function processorRowsOf(db: PublicApiDatabase, executionIds: number[], jobIds: string[]): Promise<Record<string, number>> {
  const keys = [...executionIds.map((id) => `execution:${id}`), ...jobIds.map((j) => `job:${j}`)];
  const out: Record<string, number> = {};
  for (const table of ['workflow_node_runs', 'workflow_wakeups']) {
    const n = ((await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE execution_key = ANY($1::text[])`, [keys])) as { n: number }[])[0]!.n;
    if (n > 0) out[table] = n;
  }
  return out;
}

/**
 * Tables that neither name a user (userColumns) nor hang off a table that
 * does through foreign keys that cascade, from the catalogue: a user's rows
 * there would outlive the account unless a purge removes them by some other
 * link, so the deletion test lists and checks each of them, and a new table
 * of this kind fails it until it is.
 */
export async function tablesWithoutUserLink(db: PublicApiDatabase): Promise<string[]> {
  const rows = (await db.query(
    `WITH RECURSIVE linked(table_name) AS (
       SELECT DISTINCT table_name::text FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name IN ('user_id', 'owner_id', 'actor_user_id')
       UNION
       SELECT child.relname::text FROM pg_constraint c
         JOIN pg_class child ON child.oid = c.conrelid
         JOIN pg_class parent ON parent.oid = c.confrelid
         JOIN linked l ON l.table_name = parent.relname
        WHERE c.contype = 'f' AND c.confdeltype = 'c')
     SELECT table_name AS t FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN (SELECT table_name FROM linked)
      ORDER BY 1`,
  )) as { t: string }[];
  return rows.map((r) => r.t);
}
