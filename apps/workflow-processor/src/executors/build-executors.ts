import type { Mailer } from '@docflow/mail';
import type { OutboundClient } from '@docflow/outbound-http';
import { CONTROL_TASK_TYPE, DEFAULT_WORKFLOW_LIMITS, type WorkflowLimits } from '@docflow/workflow';
import { controlExecutor } from './control.executor';
import { decisionExecutor } from './decision.executor';
import { createEmailSendExecutor } from './email-send.executor';
import { ExecutorRegistry } from './executor-registry';
import type { AiExecutorDeps } from './ai/ai-deps';
import { buildAiExecutors } from './ai/ai-executors';
import { createCloudDriveFetchExecutor, type CloudDriveFetchDeps } from './cloud-drive/cloud-drive-fetch.executor';
import { notAvailableExecutor } from './not-available/not-available';
import { buildRagExecutors, type RagExecutorDeps } from './rag/rag-executors';
import type { NodeCredentialSource } from './rest-api/node-credentials';
import { createRestApiExecutor } from './rest-api/rest-api.executor';
import { userInputExecutor } from './user-input.executor';
import { createWaitExecutor } from './wait.executor';

export interface ExecutorDeps {
  outbound: OutboundClient;
  mailer: Pick<Mailer, 'send'>;
  restDefaultTimeoutSeconds: number;
  /** WAIT_PARK_AFTER_MS and WAIT_HOLD_MAX_MS: when a wait_task parks between polls (issue #15 item 3). */
  parking?: { parkAfterMs: number; holdMaxMs: number };
  /** MAIL_FROM_ALLOWED, or the MAIL_FROM address: the senders a node may name in `from`. */
  mailSenders?: readonly string[];
  /** README, Limits: bounds on the values a node resolves at run time. */
  limits?: Pick<WorkflowLimits, 'maxRestTimeoutSeconds' | 'minPollIntervalSeconds' | 'maxWaitTimeoutSeconds' | 'maxRecipientsPerEmail'>;
  /** The LLM service and content clients of the AI task types; without them those types fail as not_available. */
  ai?: AiExecutorDeps;
  /** The public API's internal RAG endpoints (PUBLIC_API_INTERNAL_URL, SERVICE_KEY); without them the RAG task types fail as not_available. */
  rag?: RagExecutorDeps;
  /** The run user's drive and the public API's document import; without them cloud_drive_fetch_task fails as not_available. */
  drive?: CloudDriveFetchDeps;
  /** The public API's node-credential route; without it a rest_api_task naming a credential_id fails as configuration_error. */
  credentials?: NodeCredentialSource;
}

/** One executor per task type id (spec 2.7) plus custom_task; throws when one is missing or doubled. */
export function buildExecutors(deps: ExecutorDeps): ExecutorRegistry {
  const ai = buildAiExecutors(deps.ai);
  const rag = buildRagExecutors(deps.rag);
  const limits = deps.limits ?? DEFAULT_WORKFLOW_LIMITS;
  const registry = new ExecutorRegistry()
    .register(CONTROL_TASK_TYPE, controlExecutor)
    .register('classification_task', ai.classification_task)
    .register('extraction_task', ai.extraction_task)
    .register('llm_task', ai.llm_task)
    .register('summarization_task', ai.summarization_task)
    .register('classify_and_extract', ai.classify_and_extract)
    .register('cloud_drive_fetch_task', deps.drive ? createCloudDriveFetchExecutor(deps.drive) : notAvailableExecutor('cloud_drive_fetch_task'))
    .register(
      'rest_api_task',
      createRestApiExecutor({
        client: deps.outbound,
        defaultTimeoutSeconds: deps.restDefaultTimeoutSeconds,
        maxTimeoutSeconds: limits.maxRestTimeoutSeconds,
        credentials: deps.credentials,
      }),
    )
    .register('email_send_task', createEmailSendExecutor({ mailer: deps.mailer, maxRecipients: limits.maxRecipientsPerEmail, allowedFrom: deps.mailSenders ?? [] }))
    .register(
      'wait_task',
      createWaitExecutor({
        client: deps.outbound,
        requestTimeoutSeconds: deps.restDefaultTimeoutSeconds,
        minPollIntervalSeconds: limits.minPollIntervalSeconds,
        maxTimeoutSeconds: limits.maxWaitTimeoutSeconds,
        ...(deps.parking ? { parkAfterMs: deps.parking.parkAfterMs, holdMaxMs: deps.parking.holdMaxMs } : {}),
      }),
    )
    .register('rag_enable_task', rag.rag_enable_task)
    .register('rag_query_task', rag.rag_query_task)
    .register('decision', decisionExecutor)
    .register('user_input_task', userInputExecutor);
  registry.assertComplete();
  return registry;
}
