// The agents module: agents and their conversations, squads, chatbots and the Composer's tools.
import { AgentEntity } from './agent.entity';
import { ChatbotEntity } from './chatbots/chatbot.entity';
import { AgentMessageEntity, ConversationEntity } from './conversation.entity';
import { CreateChatbots1764000000073 } from './migrations/1764000000073-CreateChatbots';
import { CreateAgents1764000000074 } from './migrations/1764000000074-CreateAgents';
import { CreateSquads1764000000075 } from './migrations/1764000000075-CreateSquads';
import { SquadEntity } from './squads/squad.entity';

export { createAgentsModule } from './agents.module';
export type { AgentsModule, AgentsModuleDeps } from './agents.module';

export const AGENTS_ENTITIES = [ChatbotEntity, AgentEntity, ConversationEntity, AgentMessageEntity, SquadEntity];
export const AGENTS_MIGRATIONS = [CreateChatbots1764000000073, CreateAgents1764000000074, CreateSquads1764000000075];
