import { isPlainObject } from '@docflow/service-kit';
import { type JsonSchema } from '../types';
import { classificationTask, classifyAndExtract, extractionTask, llmTask, summarizationTask } from './ai-task-types';
import { decisionTask, userInputTask, waitTask } from './control-task-types';
import { cloudDriveFetchTask, emailSendTask, restApiTask } from './integration-task-types';
import { ragEnableTask, ragQueryTask } from './rag-task-types';
import { deepFreeze, JSON_SCHEMA_DRAFT } from './schema-fragments';
import type { TaskTypeDefinition } from './task-type';

function withDraft(schema: JsonSchema): JsonSchema {
  return { $schema: JSON_SCHEMA_DRAFT, ...schema };
}

function finalize(definition: TaskTypeDefinition): TaskTypeDefinition {
  return {
    ...definition,
    config_schema: withDraft(definition.config_schema),
    input_schema: withDraft(definition.input_schema),
    output_schema: withDraft(definition.output_schema),
  };
}

/** The 13 task types of the registry (spec 2.7), deep-frozen, in display order. */
export const TASK_TYPES: readonly TaskTypeDefinition[] = deepFreeze(
  [
    classificationTask,
    extractionTask,
    llmTask,
    summarizationTask,
    classifyAndExtract,
    cloudDriveFetchTask,
    restApiTask,
    emailSendTask,
    waitTask,
    ragEnableTask,
    ragQueryTask,
    decisionTask,
    userInputTask,
  ].map(finalize),
);

const BY_ID: ReadonlyMap<string, TaskTypeDefinition> = new Map(TASK_TYPES.flatMap((entry) => [entry.id, ...(entry.aliases ?? [])].map((id) => [id, entry] as const)));

/** The registry entry for a task type id or alias (`decision_task` resolves to `decision`). */
export function getTaskType(id: unknown): TaskTypeDefinition | undefined {
  return typeof id === 'string' ? BY_ID.get(id) : undefined;
}

export function isKnownTaskType(id: unknown): boolean {
  return getTaskType(id) !== undefined;
}

/**
 * A copy of `config` with the schema defaults of the task type filled in for
 * absent keys (recursing into nested object properties such as `body`).
 * Unknown task types return a plain copy.
 */
export function applyConfigDefaults(taskType: TaskTypeDefinition | string, config: unknown): Record<string, unknown> {
  const entry = typeof taskType === 'string' ? getTaskType(taskType) : taskType;
  const source = isPlainObject(config) ? config : {};
  return entry ? fillDefaults(entry.config_schema, source) : { ...source };
}

function fillDefaults(schema: JsonSchema, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  const properties = schema['properties'];
  if (!isPlainObject(properties)) return out;
  for (const [key, propertySchema] of Object.entries(properties)) {
    if (!isPlainObject(propertySchema)) continue;
    const current = out[key];
    if (current === undefined && 'default' in propertySchema) {
      out[key] = structuredClone(propertySchema['default']);
    } else if (isPlainObject(current) && isPlainObject(propertySchema['properties'])) {
      out[key] = fillDefaults(propertySchema, current);
    }
  }
  return out;
}
