import { JOB_STATUSES } from '@docflow/contracts';
import type { OpenApiRegistry } from '../../platform';
import { EXTRACTION_JOB_TYPES, MAX_JOB_DOCUMENTS } from './classification-jobs.dto';

const EXTRACTION_RESULT = {
  type: ['object', 'null'],
  description: 'Phase 1 (classification) and phase 2 (matching against the caller’s visible prompts) of the extraction processor',
  properties: {
    classification: { type: 'string' },
    document_type: { type: 'string' },
    category: { type: 'string' },
    key_features: { type: 'array', items: { type: 'string' } },
    confidence: { type: 'number' },
    reasoning: { type: 'string' },
    matched_prompt_id: { type: ['integer', 'null'], description: 'Set when match_confidence is at least 0.7' },
    match_confidence: { type: 'number', description: '0.0 when no prompt matched' },
    match_reasoning: { type: 'string' },
  },
};

export function describeClassificationJobRoutes(openapi: OpenApiRegistry): void {
  openapi.add('post', '/jobs/collection/{collection_id}/generate', {
    summary: 'Classify (or extract, or OCR) documents of one of the caller’s collections, as a router job',
    description: `Without document_ids, every document of the collection (at most ${MAX_JOB_DOCUMENTS}). Each named document must belong to the caller. Poll GET /jobs/{job_id}/status.`,
    tags: ['jobs'],
    parameters: [{ name: 'collection_id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
    requestBody: {
      type: 'object',
      properties: {
        job_type: { type: 'string', enum: [...EXTRACTION_JOB_TYPES], default: 'classification' },
        document_ids: { type: 'array', minItems: 1, maxItems: MAX_JOB_DOCUMENTS, items: { type: 'integer' } },
        metadata: { type: 'object' },
        config: { type: 'object' },
      },
    },
    responses: {
      200: {
        description: 'Queued',
        schema: {
          type: 'object',
          required: ['job_id', 'success', 'message'],
          properties: {
            job_id: { type: 'string', examples: ['cls_4f6c2a1e-5b0f-4f43-9d7e-2c1a9f0e8b11'] },
            success: { type: 'boolean' },
            message: { type: 'string' },
            job_type: { type: 'string', enum: [...EXTRACTION_JOB_TYPES] },
            status: { type: 'string', enum: ['queued'] },
            document_count: { type: 'integer' },
          },
        },
      },
    },
    errors: [400, 404, 503],
  });
  openapi.add('get', '/jobs/{job_id}/status', {
    summary: 'Status and result of one of the caller’s classification jobs',
    tags: ['jobs'],
    parameters: [{ name: 'job_id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: {
        description: 'The job; result is null until it completed',
        schema: {
          type: 'object',
          required: ['status', 'result'],
          properties: {
            job_id: { type: 'string' },
            job_type: { type: 'string', enum: [...EXTRACTION_JOB_TYPES] },
            status: { type: 'string', enum: [...JOB_STATUSES] },
            result: {
              type: ['object', 'null'],
              properties: {
                extraction_result: EXTRACTION_RESULT,
                metadata: {
                  type: ['object', 'null'],
                  properties: { document_name: { type: 'string' }, category: { type: 'string' }, classification_method: { type: 'string' } },
                },
                documents: { type: 'array', description: 'One entry per document when the job had several', items: { type: 'object' } },
              },
            },
            error: { type: ['string', 'null'] },
            created_at: { type: 'string', format: 'date-time' },
            updated_at: { type: ['string', 'null'], format: 'date-time' },
          },
        },
      },
    },
    errors: [404, 503],
  });
}
