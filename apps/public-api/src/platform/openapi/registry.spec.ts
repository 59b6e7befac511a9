import { OpenApiRegistry } from './registry';

describe('OpenApiRegistry', () => {
  const build = (registry: OpenApiRegistry) => registry.document({ title: 'T', version: '0.9.0', serverUrl: 'http://h/api' });

  it('builds operations with path parameters, security and standard error responses', () => {
    const registry = new OpenApiRegistry();
    registry.add('get', '/documents/{id}', { summary: 'One document', tags: ['documents'], responses: { 200: { description: 'ok', schema: { type: 'object' } } }, errors: [404] });
    registry.add('post', '/auth/local', { summary: 'Login', tags: ['auth'], auth: 'none', requestBody: { type: 'object' }, responses: { 200: { description: 'ok' } } });
    const doc = build(registry);

    const get = doc.paths['/documents/{id}']?.get as Record<string, unknown>;
    expect(get.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(get).not.toHaveProperty('security');
    expect(get.operationId).toBe('getDocumentsById');
    expect(Object.keys(get.responses as object)).toEqual(['200', '401', '404', '500']);
    expect((get.responses as Record<string, unknown>)['404']).toEqual({ $ref: '#/components/responses/NotFound' });

    const post = doc.paths['/auth/local']?.post as Record<string, unknown>;
    expect(post.security).toEqual([]);
    expect(Object.keys(post.responses as object)).toEqual(['200', '500']);
    expect(post.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { type: 'object' } } } });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  it('refuses an operation described twice and Express-style paths', () => {
    const registry = new OpenApiRegistry();
    const op = { summary: 's', tags: [], responses: { 200: { description: 'ok' } } };
    registry.add('get', '/a', op);
    expect(() => registry.add('get', '/a', op)).toThrow('described twice');
    expect(() => registry.add('get', '/documents/:id', op)).toThrow('{param}');
    expect(registry.has('get', '/a')).toBe(true);
    expect(registry.has('post', '/a')).toBe(false);
  });
});
