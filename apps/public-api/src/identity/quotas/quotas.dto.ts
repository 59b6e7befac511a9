import { IsInt, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { BadRequestError, parseBody } from '@docflow/service-kit';
import { requestFields } from '../../platform';
import type { QuotaOverrides } from './quotas.repository';

const FIELDS = ['storage_bytes', 'executions_monthly', 'llm_cost_monthly'] as const;

/** Body of PUT /admin/users/{id}/quotas (`{data: {...}}` or the fields alone): each field a new override, null for the default. */
export class QuotaUpdateBody {
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  storage_bytes?: number | null;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2147483647)
  executions_monthly?: number | null;

  /** US dollars a month, as the LLM service's `cost` (spec 4.16). */
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 6 })
  @Min(0)
  @Max(99_999_999)
  llm_cost_monthly?: number | null;
}

/** The overrides a PUT changes (a field left out is not in the result; null resets it to the default). */
export function parseQuotaUpdate(body: unknown): Partial<QuotaOverrides> {
  const fields = requestFields(body);
  const unknown = Object.keys(fields).filter((k) => !(FIELDS as readonly string[]).includes(k));
  if (unknown.length)
    throw BadRequestError.withErrors(
      'Invalid request body',
      unknown.map((k) => `${k}: unknown field (expected ${FIELDS.join(', ')})`),
    );
  if (Object.keys(fields).length === 0) throw BadRequestError.withErrors('Invalid request body', [`give at least one of ${FIELDS.join(', ')}`]);
  const parsed = parseBody(QuotaUpdateBody, fields);
  const patch: Partial<QuotaOverrides> = {};
  if ('storage_bytes' in fields) patch.storageBytes = parsed.storage_bytes ?? null;
  if ('executions_monthly' in fields) patch.executionsMonthly = parsed.executions_monthly ?? null;
  if ('llm_cost_monthly' in fields) patch.llmCostMonthly = parsed.llm_cost_monthly ?? null;
  return patch;
}
