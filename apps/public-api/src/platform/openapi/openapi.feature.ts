import type { ApiFeature, PlatformServices } from '../feature';
import type { OpenApiDocument } from './registry';

/** Version of the machine-readable description of the public API (spec 9). */
export const PUBLIC_API_VERSION = '0.9.0';

/** GET /openapi.json; register it last so that the document holds every feature's paths. */
export const openApiFeature: ApiFeature<Pick<PlatformServices, 'config' | 'openapi'>> = {
  name: 'openapi',
  register(api, ctx) {
    ctx.openapi.add('get', '/openapi.json', {
      summary: 'This OpenAPI document',
      tags: ['meta'],
      auth: 'none',
      responses: { 200: { description: 'OpenAPI 3.1 document', schema: { type: 'object' } } },
    });
    let document: OpenApiDocument | undefined;
    api.get('/openapi.json', (_req, res) => {
      document ??= ctx.openapi.document({
        title: 'Docflow public API',
        version: PUBLIC_API_VERSION,
        serverUrl: `${ctx.config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/api`,
        description: 'Documents, prompts and workflow automation. Every path is relative to the server URL, which ends in /api.',
      });
      res.json(document);
    });
  },
};
