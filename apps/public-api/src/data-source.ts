import type { DataSource } from 'typeorm';
import { openDatabase } from '@docflow/persistence';
import type { Logger } from '@docflow/service-kit';
import { RevokedTokenEntity } from './auth/revoked-token.entity';
import { StepUpCodeEntity } from './auth/step-up-code.entity';
import { StepUpGrantEntity } from './auth/step-up-grant.entity';
import { ActivityEntity } from './activities/activity.entity';
import { AuditRecordEntity } from './audit/audit-record.entity';
import { CredentialEntity } from './credentials/credential.entity';
import { WebhookEntity } from './webhooks/webhook.entity';
import { ChatbotEntity } from './chatbots/chatbot.entity';
import { AgentEntity } from './agents/agent.entity';
import { AgentMessageEntity, ConversationEntity } from './agents/conversation.entity';
import { SquadEntity } from './squads/squad.entity';
import { ScheduleEntity } from './schedules/schedule.entity';
import { ClassificationJobEntity } from './classification-jobs/classification-job.entity';
import { CollectionDocumentEntity } from './collections/collection-document.entity';
import { CollectionEntity } from './collections/collection.entity';
import { DocumentEntity } from './documents/document.entity';
import { UserStorageUsageEntity } from './documents/storage-usage.entity';
import { CreateUsers1764000000000 } from './migrations/1764000000000-CreateUsers';
import { CreateAuthTables1764000000001 } from './migrations/1764000000001-CreateAuthTables';
import { CreateActivities1764000000010 } from './migrations/1764000000010-CreateActivities';
import { CreateWorkflowExecutions1764000000011 } from './migrations/1764000000011-CreateWorkflowExecutions';
import { CreateDocuments1764000000020 } from './migrations/1764000000020-CreateDocuments';
import { CreateCollections1764000000021 } from './migrations/1764000000021-CreateCollections';
import { DocumentTitleIndexWithoutPendingList1764000000022 } from './migrations/1764000000022-DocumentTitleIndexWithoutPendingList';
import { AddExecutionAnalyticsIndex1764000000040 } from './migrations/1764000000040-AddExecutionAnalyticsIndex';
import { CreateRagChunks1764000000050 } from './migrations/1764000000050-CreateRagChunks';
import { RagPgvector1764000000051 } from './migrations/1764000000051-RagPgvector';
import { RagEmbeddingBytes1764000000052 } from './migrations/1764000000052-RagEmbeddingBytes';
import { RagChunkStorage1764000000053 } from './migrations/1764000000053-RagChunkStorage';
import { AuthChangeNotifications1764000000060 } from './migrations/1764000000060-AuthChangeNotifications';
import { DocumentTextLz41764000000061 } from './migrations/1764000000061-DocumentTextLz4';
import { CreateAuditLog1764000000070 } from './migrations/1764000000070-CreateAuditLog';
import { CreateCredentials1764000000071 } from './migrations/1764000000071-CreateCredentials';
import { CreateWebhooks1764000000072 } from './migrations/1764000000072-CreateWebhooks';
import { CreateChatbots1764000000073 } from './migrations/1764000000073-CreateChatbots';
import { CreateAgents1764000000074 } from './migrations/1764000000074-CreateAgents';
import { CreateSquads1764000000075 } from './migrations/1764000000075-CreateSquads';
import { CreateWorkflowSchedules1764000000076 } from './migrations/1764000000076-CreateWorkflowSchedules';
import { CreateDataShieldDetectors1764000000080 } from './data-shield/migrations/1764000000080-CreateDataShieldDetectors';
import { DataShieldDetectorEntity, DataShieldPackEntity, DataShieldSubjectSettingEntity } from './data-shield/data-shield-detector.entity';
import { CreatePrompts1764000000030 } from './migrations/1764000000030-CreatePrompts';
import { SeedSystemPrompts1764000000031 } from './migrations/1764000000031-SeedSystemPrompts';
import { CreateClassificationJobs1764000000032 } from './migrations/1764000000032-CreateClassificationJobs';
import { PromptEntity } from './prompts/prompt.entity';
import { EventLogEntity, EventSourceEntity, EventSubscriptionEntity } from './workflows/event-bus/event-bus.entity';
import { CreateEventBus1764000000090 } from './workflows/event-bus/migrations/1764000000090-CreateEventBus';
import { UserEntity } from './users/user.entity';
import { WorkflowExecutionStepEntity } from './workflow-executions/workflow-execution-step.entity';
import { WorkflowExecutionEntity } from './workflow-executions/workflow-execution.entity';

/** The public API's database handle, named here so that code outside repositories need not import TypeORM. */
export type PublicApiDatabase = DataSource;

export const MIGRATIONS_TABLE = 'public_api_migrations';

/** Every entity of the public API. A feature with tables adds its entities here. */
export const ENTITIES = [UserEntity, RevokedTokenEntity, StepUpCodeEntity, StepUpGrantEntity, DocumentEntity, UserStorageUsageEntity, CollectionEntity, CollectionDocumentEntity, ActivityEntity, WorkflowExecutionEntity, WorkflowExecutionStepEntity, PromptEntity, ClassificationJobEntity, AuditRecordEntity, CredentialEntity, WebhookEntity, ChatbotEntity, AgentEntity, ConversationEntity, AgentMessageEntity, SquadEntity, ScheduleEntity, DataShieldDetectorEntity, DataShieldPackEntity, DataShieldSubjectSettingEntity, EventSourceEntity, EventSubscriptionEntity, EventLogEntity];

/** Every migration of the public API, in order. A feature with tables appends its migrations here. */
export const MIGRATIONS = [CreateUsers1764000000000, CreateAuthTables1764000000001, CreateActivities1764000000010, CreateWorkflowExecutions1764000000011, CreateDocuments1764000000020, CreateCollections1764000000021, DocumentTitleIndexWithoutPendingList1764000000022, CreatePrompts1764000000030, SeedSystemPrompts1764000000031, CreateClassificationJobs1764000000032, AddExecutionAnalyticsIndex1764000000040, CreateRagChunks1764000000050, RagPgvector1764000000051, RagEmbeddingBytes1764000000052, RagChunkStorage1764000000053, AuthChangeNotifications1764000000060, DocumentTextLz41764000000061, CreateAuditLog1764000000070, CreateCredentials1764000000071, CreateWebhooks1764000000072, CreateChatbots1764000000073, CreateAgents1764000000074, CreateSquads1764000000075, CreateWorkflowSchedules1764000000076, CreateDataShieldDetectors1764000000080, CreateEventBus1764000000090];

/** Creates the database when missing, connects, and runs pending migrations (under an advisory lock). */
export function openPublicApiDatabase(url: string, logger?: Logger): Promise<PublicApiDatabase> {
  return openDatabase({ url, entities: ENTITIES, migrations: MIGRATIONS, migrationsTableName: MIGRATIONS_TABLE, logger });
}
