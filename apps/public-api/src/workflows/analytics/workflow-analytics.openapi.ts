import type { OpenApiRegistry } from '../../platform';
import { DEFAULT_ERRORS_LIMIT, DEFAULT_PERIOD, MAX_ERRORS_LIMIT, PERIOD_NAMES } from './analytics-query';

const periodSchema = { type: 'string', pattern: '^(all_time|last_[1-9][0-9]{0,3}_(hour|day|week|month)s?)$', examples: [...PERIOD_NAMES] };
import { INPUT_SUMMARY_MAX_CHARS, INPUT_SUMMARY_MAX_KEYS } from './inputs-summary';

const dataOf = (schema: Record<string, unknown>) => ({ type: 'object', required: ['data'], properties: { data: schema } });
const count = { type: 'integer', minimum: 0 };
const percent = { type: 'number', minimum: 0, maximum: 100, description: 'Percent of finished (completed or failed) executions that completed, 2 decimals; 0 when none finished' };
const seconds = (what: string) => ({ type: ['number', 'null'], description: `${what}; null when there is nothing to average` });
const countsBy = (what: string) => ({ type: 'object', additionalProperties: { type: 'integer' }, description: `Failed executions by ${what}` });
const scopeNote = "Counts the executions the caller created (a super administrator: every user's).";

export function describeAnalyticsRoutes(openapi: OpenApiRegistry): void {
  openapi.add('get', '/workflows/metrics/overview', {
    summary: 'Execution metrics over a period',
    description: `${scopeNote} The period filters on creation time; days are UTC dates and only days with executions are listed.`,
    tags: ['workflows'],
    parameters: [{ name: 'period', in: 'query', schema: { ...periodSchema, default: DEFAULT_PERIOD } }],
    responses: {
      200: {
        description: 'Totals, per workflow and per day',
        schema: dataOf({
          type: 'object',
          required: ['period', 'total_executions', 'successful', 'failed', 'awaiting_input', 'success_rate', 'avg_execution_time_seconds', 'by_workflow', 'by_day'],
          properties: {
            period: periodSchema,
            total_executions: count,
            successful: count,
            failed: count,
            awaiting_input: count,
            success_rate: percent,
            avg_execution_time_seconds: seconds('Mean started-to-completed time of completed and failed executions, 2 decimals'),
            by_workflow: {
              type: 'array',
              description: 'Most executed first',
              items: {
                type: 'object',
                properties: {
                  activity_id: { type: 'integer' },
                  workflow_name: { type: 'string' },
                  executions: count,
                  success_rate: percent,
                  avg_time: seconds('Mean execution time in seconds'),
                },
              },
            },
            by_day: {
              type: 'array',
              items: { type: 'object', properties: { date: { type: 'string', format: 'date' }, executions: count, success: { ...count, description: 'Completed executions' } } },
            },
          },
        }),
      },
    },
    errors: [400],
  });

  openapi.add('get', '/workflows/errors/recent', {
    summary: 'The latest failed executions',
    description: `${scopeNote} \`total\` and \`by_error_type\` cover every failed execution, \`errors\` the latest \`limit\` of them.`,
    tags: ['workflows'],
    parameters: [
      {
        name: 'limit',
        in: 'query',
        schema: { type: 'integer', minimum: 1, default: DEFAULT_ERRORS_LIMIT },
        description: `At most ${MAX_ERRORS_LIMIT} are listed; a larger limit is read as ${MAX_ERRORS_LIMIT}`,
      },
    ],
    responses: {
      200: {
        description: 'Recent errors',
        schema: dataOf({
          type: 'object',
          required: ['errors', 'total', 'by_error_type'],
          properties: {
            errors: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  execution_id: { type: 'integer' },
                  activity_id: { type: 'integer' },
                  workflow_name: { type: 'string' },
                  failed_step: { type: ['string', 'null'], description: 'Label of the failed node (its id when it has no step record)' },
                  error_type: { type: 'string', examples: ['timeout', 'validation_error', 'llm_error', 'http_error', 'deadline_exceeded', 'unknown'] },
                  error_message: { type: ['string', 'null'] },
                  occurred_at: { type: 'string', format: 'date-time' },
                  retry_count: { type: 'integer', description: 'How many times the execution was resumed (each resume runs as a new job)' },
                  inputs_summary: {
                    type: 'object',
                    description: `Up to ${INPUT_SUMMARY_MAX_KEYS} input keys with strings cut to ${INPUT_SUMMARY_MAX_CHARS} characters, objects and arrays sized, secret-looking values [REDACTED]`,
                    additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
                  },
                },
              },
            },
            total: count,
            by_error_type: countsBy('error type (`unknown` when none was recorded)'),
          },
        }),
      },
    },
    errors: [400],
  });

  openapi.add('get', '/workflows/{activityId}/analytics', {
    summary: 'Analytics of one workflow',
    description: `${scopeNote} Everything under last_30_days covers executions created in the last 30 days.`,
    tags: ['workflows'],
    parameters: [{ name: 'activityId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
    responses: {
      200: {
        description: 'Per-workflow analytics',
        schema: dataOf({
          type: 'object',
          required: ['activity_id', 'workflow_name', 'total_executions', 'last_30_days'],
          properties: {
            activity_id: { type: 'integer' },
            workflow_name: { type: 'string' },
            total_executions: { ...count, description: 'All time' },
            last_30_days: {
              type: 'object',
              properties: {
                executions: count,
                success_rate: percent,
                avg_execution_time: seconds('Mean execution time in seconds'),
                total_cost: { type: 'number' },
                step_performance: {
                  type: 'array',
                  description: 'Steps that completed or failed, grouped by step name, in workflow order',
                  items: {
                    type: 'object',
                    properties: {
                      step_name: { type: 'string' },
                      runs: { ...count, description: 'Completed plus failed runs of the step' },
                      avg_duration: seconds('Mean step duration in seconds'),
                      success_rate: { type: 'number', description: 'Percent of runs that completed, 2 decimals' },
                      most_common_error: { type: ['string', 'null'] },
                    },
                  },
                },
                failure_analysis: {
                  type: 'object',
                  properties: { total_failures: count, by_step: countsBy('failed step'), by_error_type: countsBy('error type (`unknown` when none was recorded)') },
                },
              },
            },
          },
        }),
      },
    },
    errors: [404],
  });
}
