import express from 'express';
import { listRoutes, toOpenApiPath } from './list-routes';

describe('listRoutes', () => {
  it('lists routes of the app and of nested routers with their mount paths', () => {
    const app = express();
    app.get('/_health', (_req, res) => res.end());
    app.use((_req, _res, next) => next());
    const api = express.Router();
    api.post('/auth/local', (_req, res) => res.end());
    api
      .route('/documents/:id')
      .get((_req, res) => res.end())
      .delete((_req, res) => res.end());
    const nested = express.Router();
    nested.put('/:slug/keys', (_req, res) => res.end());
    api.use('/agents', nested);
    app.use('/api', api);

    expect(listRoutes(app)).toEqual([
      { method: 'get', path: '/_health' },
      { method: 'post', path: '/api/auth/local' },
      { method: 'get', path: '/api/documents/{id}' },
      { method: 'delete', path: '/api/documents/{id}' },
      { method: 'put', path: '/api/agents/{slug}/keys' },
    ]);
  });

  it('lists nothing for an app without routes', () => {
    expect(listRoutes(express())).toEqual([]);
  });
});

describe('toOpenApiPath', () => {
  it('writes :param and *name as {param}', () => {
    expect(toOpenApiPath('/documents/:id/versions/:version_id')).toBe('/documents/{id}/versions/{version_id}');
    expect(toOpenApiPath('/files/*path')).toBe('/files/{path}');
    expect(toOpenApiPath('/users/me')).toBe('/users/me');
  });
});
