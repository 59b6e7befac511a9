import type { DocumentsModule } from '../documents';
import type { AuthGuards, QuotasService } from '../identity';
import { bindFeature, type MountableFeature, type PlatformServices } from '../platform';
import type { RagModule } from '../rag';
import type { WorkflowsModule } from '../workflows';
import { createAgentRuntime } from './agent-runtime';
import { createAgentsFeature } from './agents.feature';
import { createChatbotsFeature } from './chatbots/chatbots.feature';
import { createSquadsFeature } from './squads/squads.feature';

export interface AgentsModuleDeps extends Pick<PlatformServices, 'config' | 'database' | 'logger' | 'openapi' | 'limits' | 'mailer'> {
  auth: AuthGuards;
  /** Agents' tools read documents; chatbots and agents answer from RAG. */
  documents: DocumentsModule;
  rag: RagModule;
  /** Agents' tools list activities, and the Composer drafts them. */
  activities: WorkflowsModule['activities'];
  /** Public chats stop once the owner's monthly LLM cost quota is used up. */
  quotas: QuotasService;
  /** The owner's credential's fields (the credential store), for agents' MCP servers. */
  credentialFields(ownerId: number, credentialId: number): Promise<Record<string, string> | undefined>;
}

export interface AgentsModule {
  features: { chatbots: MountableFeature; agents: MountableFeature; squads: MountableFeature };
}

/** Agents and their conversations, squads, chatbots and the Composer's tools, over one LLM client. */
export function createAgentsModule(deps: AgentsModuleDeps): AgentsModule {
  const runtime = createAgentRuntime(deps, { documents: deps.documents, rag: deps.rag, activities: deps.activities, quotas: deps.quotas, credentialFields: deps.credentialFields });
  const needs = { config: deps.config, database: deps.database, openapi: deps.openapi, limits: deps.limits, logger: deps.logger, auth: deps.auth };
  return {
    features: {
      chatbots: bindFeature(createChatbotsFeature({ rag: deps.rag, quotas: deps.quotas }), needs),
      agents: bindFeature(createAgentsFeature(runtime), needs),
      squads: bindFeature(createSquadsFeature(runtime), needs),
    },
  };
}
