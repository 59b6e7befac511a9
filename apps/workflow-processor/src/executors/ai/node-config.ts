import { MODEL_TYPES, type ModelType } from '@docflow/contracts';
import { isPlainObject } from '@docflow/workflow';
import { NodeFailure, type NodeContext } from '../executor';

const EXACT_TEMPLATE = /^\{\{[^{}]+\}\}$/;

/** A config value, treating a template that resolved to nothing (left as `{{x}}`) as absent. */
export function configValue(ctx: NodeContext, key: string): unknown {
  const v = ctx.config[key];
  if (typeof v === 'string' && EXACT_TEMPLATE.test(v.trim())) return undefined;
  return v;
}

export function flagOf(ctx: NodeContext, key: string, fallback: boolean): boolean {
  const v = configValue(ctx, key);
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new NodeFailure('configuration_error', `${key} must be true or false (got ${JSON.stringify(v)})`);
}

export function enumOf<T extends string>(ctx: NodeContext, key: string, values: readonly T[], fallback: T): T {
  const v = configValue(ctx, key);
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
  throw new NodeFailure('configuration_error', `${key} must be one of ${values.join(', ')} (got ${JSON.stringify(v)})`);
}

export function positiveNumberOf(ctx: NodeContext, key: string, fallback: number): number {
  const v = configValue(ctx, key);
  if (v === undefined || v === null || v === '') return fallback;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n <= 0) throw new NodeFailure('configuration_error', `${key} must be a positive number (got ${JSON.stringify(v)})`);
  return n;
}

export function modelTypeOf(ctx: NodeContext): ModelType | undefined {
  const v = configValue(ctx, 'model_type');
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string' && (MODEL_TYPES as readonly string[]).includes(v)) return v as ModelType;
  throw new NodeFailure('configuration_error', `model_type must be one of ${MODEL_TYPES.join(', ')} (got ${JSON.stringify(v)})`);
}

/** A prompt id from config: a positive integer or a string of digits. */
export function promptIdOf(ctx: NodeContext, key = 'prompt_id'): number | undefined {
  const v = configValue(ctx, key);
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new NodeFailure('configuration_error', `${key} must be a positive integer (got ${JSON.stringify(v)})`);
  return n;
}

/** The run's user: from the signed job only (see NodeContext.runUserId). */
export function userIdOf(ctx: NodeContext): number | undefined {
  return ctx.runUserId;
}

/** `prompt_data` from the node config, else from the run inputs. */
export function promptDataOf(ctx: NodeContext): Record<string, unknown> | undefined {
  for (const v of [configValue(ctx, 'prompt_data'), ctx.inputs['prompt_data']]) {
    if (v === undefined || v === null) continue;
    if (isPlainObject(v)) return v;
    throw new NodeFailure('configuration_error', 'prompt_data must be an object');
  }
  return undefined;
}
