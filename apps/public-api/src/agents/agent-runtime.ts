import { createLlmClient } from '@docflow/llm-client';
import type { WorkflowsModule } from '../workflows';
import type { PlatformServices } from '../platform';
import type { RagModule } from '../rag';
import { parseCreateSquad } from './squads/squads.dto';
import { SquadsRepository } from './squads/squads.repository';
import { SquadsService } from './squads/squads.service';
import type { DocumentsModule } from '../documents';
import { type AgentTool, agentTools } from './agent-tools';
import { parseCreateAgent } from './agents.dto';
import { AgentsRepository } from './agents.repository';
import { AgentsService } from './agents.service';
import { ComposerConfirmationsRepository } from './composer-confirmations.repository';
import { composerCreateTools } from './composer-tools';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { createDataShieldSettings } from '../shield';
import type { AgentEntity } from './agent.entity';
import type { QuotasService } from '../identity';
import { UsersRepository } from '../identity';
import { mailEscalationNotifier } from './escalation/escalation-notifier';
import { createGuardedFetch } from '@docflow/outbound-http';
import { McpToolbox } from './mcp/mcp-toolbox';

/** What agents, their conversations and squads run on: one LLM client and one tool set, shared by their features. */
export interface AgentRuntime {
  agents: AgentsService;
  conversations: ConversationsService;
  squads: SquadsService;
}

export function createAgentRuntime(
  ctx: Pick<PlatformServices, 'config' | 'database' | 'logger' | 'limits' | 'mailer'>,
  deps: {
    documents: DocumentsModule;
    rag: RagModule;
    activities: WorkflowsModule['activities'];
    quotas: Pick<QuotasService, 'assertLlmBudget'>;
    credentialFields?: (ownerId: number, credentialId: number) => Promise<Record<string, string> | undefined>;
  },
): AgentRuntime {
  const repo = new AgentsRepository(ctx.database);
  const logger = ctx.logger.child({ component: 'agents' });
  const users = new UsersRepository(ctx.database);
  const notifier = mailEscalationNotifier({
    mailer: ctx.mailer,
    ownerEmail: async (id) => (await users.findById(id))?.email,
    consoleUrl: ctx.config.PUBLIC_BASE_URL,
    logger,
  });
  const conversations = new ConversationsService(new ConversationsRepository(ctx.database), notifier);
  const llm = createLlmClient({ baseUrl: ctx.config.LLM_SERVICE_URL, serviceKey: ctx.config.SERVICE_KEY, timeoutMs: 120_000, logger });
  const squadsRepo = new SquadsRepository(ctx.database);
  const activities = deps.activities.repo;
  const prompts = deps.documents.prompts.repo;
  const collections = deps.documents.collections.repo;
  // The create tools act only with a confirmation gate (ToolContext.confirmations), which squad runs never give: squad members never create.
  const tools: ReadonlyMap<string, AgentTool> = new Map([
    ...agentTools({ activities, documents: deps.documents.documents, prompts, agents: repo, squads: squadsRepo, ask: (userId, q) => deps.rag.service.ask(userId, q) }),
    ...composerCreateTools({
      activities: deps.activities.service,
      prompts: deps.documents.prompts.service,
      createAgent: (tc, fields) => agents.create({ id: tc.userId, role: tc.role ?? 'user' }, parseCreateAgent(fields)),
      createSquad: (tc, fields) => squads.create(tc.userId, parseCreateSquad(fields)),
    }),
  ]);
  const shieldSettings = createDataShieldSettings(ctx.database);
  const shieldFor = (a: AgentEntity) => shieldSettings.shieldFor('agent', { id: a.id, ownerId: a.ownerId });
  const agents: AgentsService = new AgentsService({
    repo,
    conversations,
    llm,
    tools,
    llmBudget: (userId) => deps.quotas.assertLlmBudget(userId),
    chatLimits: {
      limits: ctx.limits,
      perKey: ctx.config.AGENT_CHAT_RATE_PER_KEY,
      perSession: ctx.config.AGENT_CHAT_RATE_PER_SESSION,
      budget: { modelCalls: ctx.config.AGENT_CHAT_MAX_MODEL_CALLS, toolCalls: ctx.config.AGENT_CHAT_MAX_TOOL_CALLS },
    },
    collections: { owns: async (userId, id) => (await collections.findOwned(id, userId)) !== null, documentIds: (id) => collections.documentIds(id) },
    confirmations: new ComposerConfirmationsRepository(ctx.database),
    logger,
    shieldFor,
    mcp: new McpToolbox({
      fetch: createGuardedFetch({ allowedHosts: ctx.config.REST_API_ALLOWED_HOSTS, maxResponseBytes: 5 * 1024 * 1024 }),
      ttlMs: ctx.config.MCP_TOOLS_TTL_SECONDS * 1000,
      connectTimeoutMs: ctx.config.MCP_CONNECT_TIMEOUT_MS,
      callTimeoutMs: ctx.config.MCP_CALL_TIMEOUT_MS,
      resultMaxChars: ctx.config.MCP_RESULT_MAX_CHARS,
      credentialFields: deps.credentialFields ?? (async () => undefined),
      logger,
    }),
  });
  const squads: SquadsService = new SquadsService(squadsRepo, repo, { llm, tools, shieldFor });
  return { agents, conversations, squads };
}
