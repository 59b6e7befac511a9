import type { Request } from 'express';
import { requireServiceAuth } from '@docflow/internal-auth';
import { BadRequestError, NotFoundError } from '@docflow/service-kit';
import { type ApiFeature, idParam, type PlatformServices } from '../../platform';
import { InternalTextRepository } from './internal-text.repository';
import { readDocumentText } from './internal-text';

function optionalUserId(req: Request): number | undefined {
  const value = (req.query as Record<string, unknown>)['user_id'];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[1-9]\d{0,9}$/.test(value) || Number(value) > 2147483647) {
    throw BadRequestError.withErrors('Invalid query', ['user_id: must be a positive integer']);
  }
  return Number(value);
}

/** GET /internal/documents/{id}/text: the text the extraction processor reads for the documents of a classification job. */
export const internalTextFeature: ApiFeature<Pick<PlatformServices, 'config' | 'database' | 'openapi'>> = {
  name: 'internal-document-text',
  register(api, ctx) {
    const repo = new InternalTextRepository(ctx.database);
    const service = requireServiceAuth({ serviceKey: ctx.config.SERVICE_KEY, jwtSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET });

    api.get('/internal/documents/:id/text', service, async (req, res) => {
      const id = idParam(req.params['id']);
      if (id === undefined) throw new NotFoundError('Document not found');
      res.json(await readDocumentText(repo, id, optionalUserId(req)));
    });

    ctx.openapi.add('get', '/internal/documents/{id}/text', {
      summary: 'A document’s extracted text, for internal services (the extraction processor)',
      description: 'Header `X-Service-Key` or a service JWT. With user_id, only that user’s documents and global ones.',
      tags: ['internal'],
      auth: 'none',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
        { name: 'user_id', in: 'query', schema: { type: 'integer', minimum: 1 } },
      ],
      responses: {
        200: {
          description: 'The text (null until extraction completed)',
          schema: {
            type: 'object',
            required: ['document_id', 'title', 'mime_type', 'text_status', 'text', 'pages'],
            properties: {
              document_id: { type: 'integer' },
              title: { type: 'string' },
              mime_type: { type: 'string' },
              text_status: { type: 'string', enum: ['pending', 'processing', 'completed', 'failed', 'not_applicable'] },
              text: { type: ['string', 'null'] },
              pages: { type: ['array', 'null'], items: { type: 'object', properties: { page: { type: 'integer' }, text: { type: 'string' } } } },
              text_error: { type: ['string', 'null'] },
            },
          },
        },
      },
      errors: [400, 401, 404],
    });
  },
};
