import { listQueryString, paginationMeta, parseListQuery } from '@docflow/list-query';
import { type AuthGuards, currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import { EXECUTION_STATUSES } from './execution-status';
import { executionListSpec, ExecutionListRepository, type ExecutionListRow } from './execution-list.repository';

/** One entry of GET /workflow-executions: enough for a list; inputs, outputs and task states come from the execution's own reads. */
export interface ExecutionListItem {
  id: number;
  status: ExecutionListRow['status'];
  activity: { id: number; name: string | null };
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  error: string | null;
  failed_node: string | null;
  total_cost: number;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

export function toListItem(r: ExecutionListRow): ExecutionListItem {
  const started = r.startedAt ? new Date(r.startedAt).getTime() : null;
  const completed = r.completedAt ? new Date(r.completedAt).getTime() : null;
  return {
    id: r.id,
    status: r.status,
    activity: { id: r.activityId, name: r.activityName },
    started_at: iso(r.startedAt),
    completed_at: iso(r.completedAt),
    duration_seconds: started !== null && completed !== null ? Math.max(0, completed - started) / 1000 : null,
    error: r.error,
    failed_node: r.failedNode,
    total_cost: Number(r.totalCost ?? 0),
    createdAt: new Date(r.createdAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
  };
}

/**
 * GET /workflow-executions: the caller's executions, newest first, with the
 * spec's list conventions (2.1): `filters[status][$eq|$in]`,
 * `filters[activity][$eq]`, date ranges on `createdAt`, `started_at`,
 * `completed_at`, pagination up to 200 a page. The spec shows no list
 * (4.8); the console and the reliability issue need one.
 */
export const executionListFeature: ApiFeature<Pick<PlatformServices, 'database' | 'openapi'> & { auth: AuthGuards }> = {
  name: 'workflow-execution-list',
  register(api, { database, openapi, auth }) {
    const repo = new ExecutionListRepository(database);
    api.get('/workflow-executions', auth.requireAuth, async (req, res) => {
      const q = parseListQuery(listQueryString(req.originalUrl), executionListSpec);
      const { rows, total } = await repo.list(currentUser(req).id, q);
      res.json({ data: rows.map(toListItem), meta: { pagination: paginationMeta(q.pagination, total) } });
    });

    const dateTime = { type: ['string', 'null'], format: 'date-time' };
    openapi.add('get', '/workflow-executions', {
      summary: 'The caller’s executions, newest first (summaries: no inputs, outputs or task states)',
      tags: ['workflow-executions'],
      parameters: [
        { name: 'pagination[page]', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
        { name: 'pagination[pageSize]', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 25 } },
        { name: 'sort', in: 'query', description: 'Default `createdAt:desc`', schema: { type: 'string' } },
        { name: 'filters', in: 'query', description: 'e.g. `filters[status][$in][0]=failed`, `filters[activity][$eq]=3`, `filters[createdAt][$gte]=2026-11-01`', schema: { type: 'object' } },
      ],
      responses: {
        200: {
          description: 'Executions',
          schema: {
            type: 'object',
            properties: {
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'integer' },
                    status: { type: 'string', enum: [...EXECUTION_STATUSES] },
                    activity: { type: 'object', properties: { id: { type: 'integer' }, name: { type: ['string', 'null'] } } },
                    started_at: dateTime,
                    completed_at: dateTime,
                    duration_seconds: { type: ['number', 'null'] },
                    error: { type: ['string', 'null'] },
                    failed_node: { type: ['string', 'null'] },
                    total_cost: { type: 'number' },
                    createdAt: { type: 'string', format: 'date-time' },
                    updatedAt: { type: 'string', format: 'date-time' },
                  },
                },
              },
              meta: { type: 'object' },
            },
          },
        },
      },
      errors: [400],
    });
  },
};
