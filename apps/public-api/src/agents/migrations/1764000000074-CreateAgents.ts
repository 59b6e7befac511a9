import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agents (spec 2.10) and their conversations (2.11). An agent's key is kept
 * as its SHA-256 (to check X-Agent-Key) and sealed (to show it to the owner,
 * 2.10: "returned in agent responses"). The Composer is seeded ownerless
 * (runtime contract), without a key: it is reached with a bearer token.
 */
export class CreateAgents1764000000074 implements MigrationInterface {
  name = 'CreateAgents1764000000074';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agents (
        id serial PRIMARY KEY,
        owner_id integer NULL REFERENCES users (id) ON DELETE CASCADE,
        name varchar(255) NOT NULL,
        slug varchar(100) NOT NULL UNIQUE,
        goal text NULL,
        description text NULL,
        available_tools jsonb NOT NULL DEFAULT '[]'::jsonb,
        model varchar(50) NOT NULL DEFAULT 'provider_a',
        max_iterations integer NOT NULL DEFAULT 10 CHECK (max_iterations BETWEEN 1 AND 50),
        temperature real NOT NULL DEFAULT 0.3,
        prompt_title varchar(255) NULL,
        conversational boolean NOT NULL DEFAULT false,
        branding jsonb NOT NULL DEFAULT '{}'::jsonb,
        welcome_message text NULL,
        mcp_servers jsonb NOT NULL DEFAULT '[]'::jsonb,
        active boolean NOT NULL DEFAULT true,
        api_key_hash char(64) NULL,
        api_key_sealed text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX agents_owner_created_idx ON agents (owner_id, created_at DESC, id DESC)');
    await q.query(`
      CREATE TABLE agent_conversations (
        id serial PRIMARY KEY,
        session_id varchar(64) NOT NULL UNIQUE,
        owner_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        agent_id integer NULL REFERENCES agents (id) ON DELETE SET NULL,
        title varchar(255) NULL,
        agent_config jsonb NOT NULL DEFAULT '{}'::jsonb,
        active boolean NOT NULL DEFAULT true,
        message_count integer NOT NULL DEFAULT 0,
        escalation_status varchar(50) NULL,
        escalation_reason text NULL,
        assigned_agent varchar(255) NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX agent_conversations_owner_idx ON agent_conversations (owner_id, updated_at DESC, id DESC)');
    await q.query(`
      CREATE TABLE agent_messages (
        id bigserial PRIMARY KEY,
        conversation_id integer NOT NULL REFERENCES agent_conversations (id) ON DELETE CASCADE,
        role varchar(16) NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
        content text NOT NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        attachments jsonb NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX agent_messages_conversation_idx ON agent_messages (conversation_id, id)');
    // The Composer as 2.10 describes it: provider_a, temperature 0.4, 12 iterations, conversational, 9 tools.
    const tools = [
      'composer_list_task_types',
      'composer_list_agents',
      'composer_list_workflows',
      'composer_list_squads',
      'composer_list_prompts',
      'composer_create_workflow',
      'composer_create_agent',
      'composer_create_squad',
      'composer_create_prompt',
    ];
    await q.query(
      `INSERT INTO agents (owner_id, name, slug, goal, description, available_tools, model, max_iterations, temperature, conversational, welcome_message)
       VALUES (NULL, 'Composer', 'composer', $1, $2, $3::jsonb, 'provider_a', 12, 0.4, true, $4)`,
      [
        'Help the user design Docflow workflows, agents, squads and prompts: explain what exists, propose definitions, and create them only after the user explicitly confirms.',
        'Designs workflows, agents, squads and prompts with you.',
        JSON.stringify(tools),
        'Hi! Tell me what you want to automate, and I will propose a workflow.',
      ],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agent_messages');
    await q.query('DROP TABLE agent_conversations');
    await q.query('DROP TABLE agents');
  }
}
