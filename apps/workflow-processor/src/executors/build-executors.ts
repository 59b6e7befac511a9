import type { Mailer } from '@docflow/mail';
import type { OutboundClient } from '@docflow/outbound-http';
import { CONTROL_TASK_TYPE } from '@docflow/workflow';
import { controlExecutor } from './control.executor';
import { decisionExecutor } from './decision.executor';
import { createEmailSendExecutor } from './email-send.executor';
import { ExecutorRegistry } from './executor-registry';
import { classificationExecutor } from './not-available/classification.executor';
import { classifyAndExtractExecutor } from './not-available/classify-and-extract.executor';
import { cloudDriveFetchExecutor } from './not-available/cloud-drive-fetch.executor';
import { extractionExecutor } from './not-available/extraction.executor';
import { llmExecutor } from './not-available/llm.executor';
import { ragEnableExecutor } from './not-available/rag-enable.executor';
import { ragQueryExecutor } from './not-available/rag-query.executor';
import { summarizationExecutor } from './not-available/summarization.executor';
import { createRestApiExecutor } from './rest-api/rest-api.executor';
import { userInputExecutor } from './user-input.executor';
import { createWaitExecutor } from './wait.executor';

export interface ExecutorDeps {
  outbound: OutboundClient;
  mailer: Pick<Mailer, 'send'>;
  restDefaultTimeoutSeconds: number;
}

/** One executor per task type id (spec 2.7) plus custom_task; throws when one is missing or doubled. */
export function buildExecutors(deps: ExecutorDeps): ExecutorRegistry {
  const registry = new ExecutorRegistry()
    .register(CONTROL_TASK_TYPE, controlExecutor)
    .register('classification_task', classificationExecutor)
    .register('extraction_task', extractionExecutor)
    .register('llm_task', llmExecutor)
    .register('summarization_task', summarizationExecutor)
    .register('classify_and_extract', classifyAndExtractExecutor)
    .register('cloud_drive_fetch_task', cloudDriveFetchExecutor)
    .register('rest_api_task', createRestApiExecutor({ client: deps.outbound, defaultTimeoutSeconds: deps.restDefaultTimeoutSeconds }))
    .register('email_send_task', createEmailSendExecutor({ mailer: deps.mailer }))
    .register('wait_task', createWaitExecutor({ client: deps.outbound, requestTimeoutSeconds: deps.restDefaultTimeoutSeconds }))
    .register('rag_enable_task', ragEnableExecutor)
    .register('rag_query_task', ragQueryExecutor)
    .register('decision', decisionExecutor)
    .register('user_input_task', userInputExecutor);
  registry.assertComplete();
  return registry;
}
