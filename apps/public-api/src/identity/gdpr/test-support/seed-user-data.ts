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
