/** The spec and helpers shared by this library's tests (not exported from the index). */
import { AppError } from '@docflow/service-kit';
import { parseListQuery, type ListQuery } from './parse';
import { defineListSpec } from './spec';

export const docSpec = defineListSpec({
  fields: {
    id: { column: '"d"."id"', type: 'integer' },
    title: { column: '"d"."title"', type: 'string' },
    score: { column: '"d"."score"', type: 'number' },
    views: { column: '"d"."views"', type: 'bigint' },
    createdAt: { column: '"d"."created_at"', type: 'date' },
    'owner.id': { column: '"d"."owner_id"', type: 'integer' },
    'owner.username': { column: '"o"."username"', type: 'string' },
    level: { column: '"d"."level"', type: 'enum', values: ['system', 'user'] },
    ragEnabled: { column: '"d"."rag_enabled"', type: 'boolean' },
    metadata: { column: '"d"."metadata"', type: 'json' },
    secretHash: { column: '"d"."secret_hash"', type: 'string', filterable: false, sortable: false },
  },
  relations: ['owner', 'documents'],
  defaultSort: [{ field: 'createdAt', direction: 'desc' }],
});

export function parse(raw: string | Record<string, unknown>): ListQuery<'owner' | 'documents'> {
  return parseListQuery(raw, docSpec);
}

/** The `details.errors` of the BadRequestError that parsing throws (fails the test if none). */
export function errorsOf(raw: string | Record<string, unknown>): string[] {
  try {
    parse(raw);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    expect(err.status).toBe(400);
    expect(err.name).toBe('BadRequestError');
    const errors = err.details.errors;
    expect(Array.isArray(errors)).toBe(true);
    return errors as string[];
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be rejected`);
}
