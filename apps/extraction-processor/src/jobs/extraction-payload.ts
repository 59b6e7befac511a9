import { ExtractionJobPayload } from '@docflow/contracts';
import { validatePlain } from '@docflow/service-kit';

export type { ExtractionJobPayload, JobDocument } from '@docflow/contracts';

/** The validated payload, or the problems that make the job unusable. */
export function parseExtractionPayload(payload: unknown, maxDocuments: number): { ok: true; value: ExtractionJobPayload } | { ok: false; errors: string[] } {
  const parsed = validatePlain(ExtractionJobPayload, payload);
  if (!parsed.ok) return parsed;
  const errors: string[] = [];
  if (parsed.value.documents.length > maxDocuments) errors.push(`documents: at most ${maxDocuments} documents per job (got ${parsed.value.documents.length})`);
  const promptId = parsed.value.config?.prompt_id;
  if (promptId !== undefined && promptIdOf(promptId) === undefined) errors.push('config.prompt_id: must be a positive integer');
  return errors.length ? { ok: false, errors } : parsed;
}

/** A prompt id given as a number or a digit string. */
export function promptIdOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
