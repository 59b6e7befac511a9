import { deleteUserRows, type PublicApiDatabase } from '../platform';

type Row = Record<string, unknown>;

/** The agents module's rows of one user (issue #18); key hashes never leave the database. */
export class AgentsUserDataRepository {
  constructor(private readonly ds: PublicApiDatabase) {}

  private rows(sql: string, userId: number): Promise<Row[]> {
    return this.ds.query(sql, [userId]) as Promise<Row[]>;
  }

  agents(userId: number): Promise<Row[]> {
    return this.rows(
      `SELECT id, name, slug, goal, description, available_tools, model, max_iterations, temperature, prompt_title, conversational, branding,
              welcome_message, mcp_servers, active, public_collection_id, created_at, updated_at
         FROM agents WHERE owner_id = $1 ORDER BY id`,
      userId,
    );
  }

  chatbots(userId: number): Promise<Row[]> {
    return this.rows(
      `SELECT id, name, slug, active, welcome_message, branding, allowed_origins, rate_limit, query_count, created_at, updated_at
         FROM chatbots WHERE owner_id = $1 ORDER BY id`,
      userId,
    );
  }

  squads(userId: number): Promise<Row[]> {
    return this.rows('SELECT * FROM squads WHERE owner_id = $1 ORDER BY id', userId);
  }

  /** Conversations with their messages in order. */
  conversations(userId: number): Promise<Row[]> {
    return this.rows(
      `SELECT c.id, c.session_id, c.agent_id, c.title, c.agent_config, c.active, c.message_count, c.escalation_status, c.escalation_reason,
              c.assigned_agent, c.created_at, c.updated_at,
              COALESCE((SELECT json_agg(json_build_object('id', m.id, 'role', m.role, 'content', m.content, 'metadata', m.metadata,
                                                          'attachments', m.attachments, 'created_at', m.created_at) ORDER BY m.id)
                          FROM agent_messages m WHERE m.conversation_id = c.id), '[]'::json) AS messages
         FROM agent_conversations c WHERE c.owner_id = $1 ORDER BY c.id`,
      userId,
    );
  }

  /** Conversations (their messages by cascade), squads, chatbots, agents and pending Composer confirmations. */
  async deleteAll(userId: number): Promise<Record<string, number>> {
    return this.ds.transaction(async (m) => {
      const del = (table: string, column?: string) => deleteUserRows(m, table, userId, column);
      return {
        conversations: await del('agent_conversations'),
        squads: await del('squads'),
        chatbots: await del('chatbots'),
        agents: await del('agents'),
        composerConfirmations: await del('composer_confirmations', 'user_id'),
      };
    });
  }
}
