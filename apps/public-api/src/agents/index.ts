// The agents module: agents and their conversations, squads, chatbots and the Composer's tools.
import { AgentEntity } from './agent.entity';
import { ChatbotEntity } from './chatbots/chatbot.entity';
import { AgentMessageEntity, ConversationEntity } from './conversation.entity';
import { CreateChatbots1764000000073 } from './migrations/1764000000073-CreateChatbots';
import { CreateAgents1764000000074 } from './migrations/1764000000074-CreateAgents';
import { CreateSquads1764000000075 } from './migrations/1764000000075-CreateSquads';
import { DropAgentKeySealed1764000000137 } from './migrations/1764000000137-DropAgentKeySealed';
import { CreateComposerConfirmations1764000000138 } from './migrations/1764000000138-CreateComposerConfirmations';
import { AgentPublicScope1764000000139 } from './migrations/1764000000139-AgentPublicScope';
import { AgentAllowedOrigins1764000000252 } from './migrations/1764000000252-AgentAllowedOrigins';
import { EscalationStates1764000000270 } from './migrations/1764000000270-EscalationStates';
import { SquadEntity } from './squads/squad.entity';

export { createAgentsModule } from './agents.module';
export type { AgentsModule, AgentsModuleDeps } from './agents.module';

export const AGENTS_ENTITIES = [ChatbotEntity, AgentEntity, ConversationEntity, AgentMessageEntity, SquadEntity];
export const AGENTS_MIGRATIONS = [
  CreateChatbots1764000000073,
  CreateAgents1764000000074,
  CreateSquads1764000000075,
  DropAgentKeySealed1764000000137,
  CreateComposerConfirmations1764000000138,
  AgentPublicScope1764000000139,
  AgentAllowedOrigins1764000000252,
  EscalationStates1764000000270,
];
export { agentsUserData } from './user-data';
