import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Escalation states (issue 19, item 4): none, requested, assigned, resolved, dismissed. Sessions that
 * never escalated are `none`; any earlier free-form value (the column took any string) is read as a
 * request for a person, so that nobody's request is lost.
 */
export class EscalationStates1764000000270 implements MigrationInterface {
  name = 'EscalationStates1764000000270';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE agent_conversations SET escalation_status = CASE
        WHEN escalation_status IS NULL OR btrim(escalation_status) = '' THEN 'none'
        WHEN escalation_status IN ('none', 'requested', 'assigned', 'resolved', 'dismissed') THEN escalation_status
        ELSE 'requested' END`);
    await q.query("ALTER TABLE agent_conversations ALTER COLUMN escalation_status SET DEFAULT 'none', ALTER COLUMN escalation_status SET NOT NULL");
    await q.query("ALTER TABLE agent_conversations ADD CONSTRAINT agent_conversations_escalation_status_check CHECK (escalation_status IN ('none', 'requested', 'assigned', 'resolved', 'dismissed'))");
    await q.query('ALTER TABLE agent_conversations ADD COLUMN IF NOT EXISTS escalation_updated_at timestamptz NULL');
    await q.query('CREATE INDEX IF NOT EXISTS agent_conversations_owner_escalation_idx ON agent_conversations (owner_id, escalation_status)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS agent_conversations_owner_escalation_idx');
    await q.query('ALTER TABLE agent_conversations DROP COLUMN IF EXISTS escalation_updated_at');
    await q.query('ALTER TABLE agent_conversations DROP CONSTRAINT IF EXISTS agent_conversations_escalation_status_check');
    await q.query('ALTER TABLE agent_conversations ALTER COLUMN escalation_status DROP NOT NULL, ALTER COLUMN escalation_status DROP DEFAULT');
    await q.query("UPDATE agent_conversations SET escalation_status = NULL WHERE escalation_status = 'none'");
  }
}
