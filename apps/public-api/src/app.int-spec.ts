import request from 'supertest';
import type express from 'express';
import type { ApiFeature } from './platform';
import { listRoutes } from './platform';
import type { HttpMethod, OpenApiDocument } from './platform';
import { buildTestApp, LogLine, openTestBed, recordingLogger, TestBed } from './test-support/test-app';

let bed: TestBed;
let app: express.Express;
const lines: LogLine[] = [];

interface ErrorBody {
  error: { status: number; name: string; message: string; details: Record<string, unknown> };
}

const failing: ApiFeature = {
  name: 'test-failure',
  register(api) {
    api.get('/test/boom', () => {
      throw new Error('database exploded at /srv/secret/path.ts');
    });
  },
};

beforeAll(async () => {
  bed = await openTestBed();
  app = buildTestApp(bed, { logger: recordingLogger(lines), features: [failing] });
});

afterAll(async () => {
  await bed?.close();
});

describe('the public API shell', () => {
  it('answers health at /_health and /api/_health, and metrics at /metrics and /api/metrics', async () => {
    await request(app).get('/_health').expect(204);
    await request(app).get('/api/_health').expect(204);
    const metrics = await request(app).get('/api/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('http_request_duration_seconds');
    await request(app).get('/metrics').expect(200);
  });

  it('answers an unknown route with a 404 error body', async () => {
    const res = await request(app).get('/api/no-such-thing');
    expect(res.status).toBe(404);
    expect((res.body as ErrorBody).error).toEqual({ status: 404, name: 'NotFoundError', message: 'Cannot GET /api/no-such-thing', details: {} });
  });

  it('answers malformed JSON with a 400 error body', async () => {
    const res = await request(app).post('/api/auth/local').set('content-type', 'application/json').send('{"identifier": "alice",');
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error).toMatchObject({ status: 400, name: 'BadRequestError', message: 'Malformed JSON body' });
  });

  it('answers a body over BODY_LIMIT with a 413 error body', async () => {
    const res = await request(app)
      .post('/api/auth/local')
      .send({ identifier: 'alice', password: 'x'.repeat(1024 * 1024 + 10) });
    expect(res.status).toBe(413);
    expect((res.body as ErrorBody).error).toMatchObject({ status: 413, name: 'PayloadTooLargeError' });
  });

  it('answers an unexpected error with 500 and an error id, never the message or stack', async () => {
    const res = await request(app).get('/api/test/boom');
    expect(res.status).toBe(500);
    const body = res.body as ErrorBody;
    expect(body.error).toEqual({ status: 500, name: 'InternalServerError', message: 'An unexpected error occurred', details: { errorId: expect.any(String) } });
    expect(res.text).not.toContain('exploded');
    expect(res.text).not.toContain('/srv/secret');
    expect(res.text).not.toMatch(/at .*\.ts:\d+/);
    const logged = lines.find((l) => l.message === 'unexpected error');
    expect(logged?.meta).toMatchObject({ errorId: body.error.details.errorId, error: 'database exploded at /srv/secret/path.ts' });
    expect(String(logged?.meta?.stack)).toContain('app.int-spec.ts');
  });
});

describe('GET /api/openapi.json', () => {
  let doc: OpenApiDocument;

  beforeAll(async () => {
    const plain = buildTestApp(bed);
    const res = await request(plain).get('/api/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as OpenApiDocument;
  });

  it('is an OpenAPI 3.1 document of version 0.9.0 with bearer security and the error schema', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect((doc.info as { version: string }).version).toBe('0.9.0');
    expect(doc.servers).toEqual([{ url: 'http://127.0.0.1:1337/api' }]);
    const components = doc.components as { securitySchemes: Record<string, unknown>; schemas: Record<string, { properties?: Record<string, unknown> }> };
    expect(components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    expect(Object.keys(components.schemas.Error?.properties ?? {})).toEqual(['error']);
    expect(doc.paths['/auth/local']?.post).toMatchObject({ security: [] });
    expect(doc.paths['/users/me']?.get).not.toHaveProperty('security');
    expect((doc.paths['/users/me']?.get as { responses: Record<string, unknown> }).responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
  });

  it('describes every mounted /api route, and nothing that is not mounted', () => {
    const plain = buildTestApp(bed);
    const mounted = listRoutes(plain)
      .filter((r) => r.path.startsWith('/api/') && r.path !== '/api/_health' && r.path !== '/api/metrics')
      .map((r) => `${r.method.toUpperCase()} ${r.path.slice('/api'.length)}`);
    expect(mounted).toEqual(expect.arrayContaining(['POST /auth/local', 'GET /users/me', 'GET /openapi.json']));

    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${(m as HttpMethod).toUpperCase()} ${path}`));
    expect(mounted.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !mounted.includes(r))).toEqual([]);
  });

  it('needs no token', async () => {
    const res = await request(app).get('/api/openapi.json');
    expect(res.status).toBe(200);
  });
});
