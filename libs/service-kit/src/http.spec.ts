import request from 'supertest';
import { BadRequestError, NotFoundError, ServiceUnavailableError, TooManyRequestsError } from './errors';
import { createHttpApp } from './http';
import { silentLogger } from './logger';
import { Metrics } from './metrics';
import { HealthCheck } from './health';

function build(style: 'public' | 'internal', health: HealthCheck[] = []) {
  return createHttpApp({ logger: silentLogger, metrics: new Metrics('test'), health, errorStyle: style, bodyLimit: '1kb', aliasPrefixes: ['/api'] }, (app) => {
    app.post('/api/echo', (req, res) => {
      res.json({ got: req.body });
    });
    app.get('/api/missing', () => {
      throw new NotFoundError('Activity not found');
    });
    app.get('/api/bad', () => {
      throw BadRequestError.withErrors('Validation failed', ['name is required', 'level must be one of system, user']);
    });
    app.get('/api/bare-bad-request', () => {
      throw new BadRequestError('job_id is required');
    });
    app.post('/api/upload', (_req, _res, next) => {
      // What multer passes on for a form with too many fields.
      next(Object.assign(new Error('Too many fields'), { code: 'LIMIT_FIELD_COUNT', field: 'meta' }));
    });
    app.get('/api/boom', async () => {
      throw new Error('database password is hunter2 at /srv/app/file.ts:12');
    });
    app.get('/api/down', () => {
      throw new ServiceUnavailableError('LLM provider unavailable', { retry_after: 5 }, 'llm_service_unavailable');
    });
    app.get('/api/db-killed', async () => {
      // What TypeORM throws when pg_terminate_backend ended the connection mid-query.
      throw Object.assign(new Error('terminating connection due to administrator command'), { driverError: { code: '57P01' } });
    });
    app.get('/api/db-gone', async () => {
      throw new Error('Connection terminated unexpectedly');
    });
    app.get('/api/broker-down', () => {
      throw new ServiceUnavailableError('Message broker is not connected');
    });
    app.get('/api/limited', () => {
      throw new TooManyRequestsError('At most 100 triggers per minute', { retry_after: 42 });
    });
  });
}

describe('createHttpApp error bodies (public style)', () => {
  const app = build('public');

  it('sends Retry-After with a 429 or 503 whose details give retry_after, and the same number in the body', async () => {
    const limited = await request(app).get('/api/limited');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('42');
    expect(limited.body).toEqual({ error: { status: 429, name: 'TooManyRequestsError', message: 'At most 100 triggers per minute', details: { retry_after: 42 } } });
    expect((await request(app).get('/api/down')).headers['retry-after']).toBe('5');
    expect((await request(app).get('/api/missing')).headers['retry-after']).toBeUndefined();
  });

  it('answers 503 with Retry-After, not 500, when the database connection was killed or lost', async () => {
    for (const path of ['/api/db-killed', '/api/db-gone']) {
      const res = await request(app).get(path);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body.error).toMatchObject({ status: 503, name: 'ServiceUnavailableError' });
    }
  });

  it('sends a default Retry-After with a 503 that names no retry_after (a dependency is down), and leaves the body alone', async () => {
    const down = await request(app).get('/api/broker-down');
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBe('5');
    expect(down.body.error.details).toEqual({});
  });

  it('answers unknown routes with a 404 NotFoundError body', async () => {
    const res = await request(app).get('/api/nowhere');
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ status: 404, name: 'NotFoundError', message: 'Cannot GET /api/nowhere', details: {} });
  });

  it('writes exactly the body of spec part 7, {"error": {status, name, message, details}}, as JSON', async () => {
    const res = await request(app).get('/api/missing');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: { status: 404, name: 'NotFoundError', message: 'Activity not found', details: {} } });
  });

  it('keeps the message of a thrown NotFoundError', async () => {
    const res = await request(app).get('/api/missing');
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe('Activity not found');
  });

  it('lists validation problems in details.errors', async () => {
    const res = await request(app).get('/api/bad');
    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('BadRequestError');
    expect(res.body.error.details.errors).toEqual(['name is required', 'level must be one of system, user']);
  });

  it('answers malformed JSON with 400 and details.errors', async () => {
    const res = await request(app).post('/api/echo').set('content-type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ status: 400, name: 'BadRequestError', message: 'Malformed JSON body', details: { errors: ['body is not valid JSON'] } });
  });

  it('reads a JSON body sent with no content type (the requests default), not a form', async () => {
    // A Buffer body goes out without a content type.
    const bare = await request(app).post('/api/echo').send(Buffer.from('{"identifier":"bob"}'));
    expect(bare.request.getHeader('content-type')).toBeUndefined();
    expect(bare.body).toEqual({ got: { identifier: 'bob' } });
    const empty = await request(app).post('/api/echo').send(Buffer.alloc(0));
    expect(empty.status).toBe(200);
    const form = await request(app).post('/api/echo').type('form').send('identifier=alice');
    expect(form.body.got).toBeUndefined();
  });

  it('refuses a text/plain body with 415 in the error body, JSON or not: cross-site pages can send it without a preflight', async () => {
    for (const body of ['{"identifier":"alice"}', 'hello']) {
      const res = await request(app).post('/api/echo').set('content-type', 'text/plain;charset=UTF-8').send(body);
      expect(res.status).toBe(415);
      expect(res.body).toEqual({
        error: {
          status: 415,
          name: 'UnsupportedMediaTypeError',
          message: 'Request bodies are JSON: send them with Content-Type: application/json',
          details: { errors: ['Content-Type text/plain is not accepted'] },
        },
      });
    }
  });

  it('answers JSON nested past 64 levels with 400, not a 500 from a stack overflow', async () => {
    const wide = createHttpApp({ logger: silentLogger, metrics: new Metrics('test'), health: [], errorStyle: 'public' }, (a) => {
      a.post('/echo', (req, res) => {
        res.json({ ok: true, got: typeof req.body });
      });
    });
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const res = await request(wide).post('/echo').set('content-type', 'application/json').send(deep);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ status: 400, name: 'BadRequestError', message: 'Request body is nested too deeply', details: { errors: ['JSON may nest objects and arrays 64 levels deep'] } });
    const atLimit = `${'{"a":'.repeat(63)}["[[[ in a string {{{"]${'}'.repeat(63)}`;
    expect((await request(wide).post('/echo').set('content-type', 'application/json').send(atLimit)).body).toEqual({ ok: true, got: 'object' });
  });

  it('gives every 400 a details.errors array of strings, the message when nothing more is known', async () => {
    const res = await request(app).get('/api/bare-bad-request');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ status: 400, name: 'BadRequestError', message: 'job_id is required', details: { errors: ['job_id is required'] } });
  });

  it('answers an upload over a multer limit with 400 and details.errors', async () => {
    const res = await request(app).post('/api/upload');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      status: 400,
      name: 'BadRequestError',
      message: 'Upload rejected: limit_field_count',
      details: { field: 'meta', errors: ['Upload rejected: limit_field_count'] },
    });
  });

  it('answers a body over the limit with 413', async () => {
    const res = await request(app)
      .post('/api/echo')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ a: 'x'.repeat(2048) }));
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ status: 413, name: 'PayloadTooLargeError' });
  });

  it('turns an unexpected error into a 500 with an error id and no internals', async () => {
    const res = await request(app).get('/api/boom');
    expect(res.status).toBe(500);
    expect(res.body.error.name).toBe('InternalServerError');
    expect(res.body.error.details.errorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|\/srv\/app|file\.ts/);
  });

  it('echoes a valid correlation id and replaces an invalid one', async () => {
    const ok = await request(app).get('/api/missing').set('x-correlation-id', 'abc-123');
    expect(ok.headers['x-correlation-id']).toBe('abc-123');
    const bad = await request(app).get('/api/missing').set('x-correlation-id', 'bad id with spaces');
    expect(bad.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('text the database cannot store', () => {
  it('refuses a NUL or a lone surrogate in a JSON body or a query string with 400 naming where, and a NUL in a path with 404', async () => {
    const app = build('public');
    const body = await request(app).post('/api/echo').set('content-type', 'application/json').send('{"data": {"name": "a\\u0000b"}}');
    expect(body.status).toBe(400);
    expect(body.body.error.details.errors).toEqual(['data.name: must not contain NUL characters or unpaired UTF-16 surrogates']);
    const surrogate = await request(app).post('/api/echo').set('content-type', 'application/json').send('{"tags": ["ok", "\\ud800"]}');
    expect(surrogate.body.error.details.errors).toEqual(['tags[1]: must not contain NUL characters or unpaired UTF-16 surrogates']);
    const query = await request(app).get('/api/missing?filters[name][$contains]=a%00b');
    expect(query.status).toBe(400);
    expect(query.body.error.details.errors[0]).toMatch(/^query\./);
    expect((await request(app).get('/api/things/a%00b')).status).toBe(404);
    const fine = await request(app).post('/api/echo').set('content-type', 'application/json').send({ name: 'plain é 😀' });
    expect(fine.status).toBe(200);
  });
});

describe('createHttpApp error bodies (internal style)', () => {
  it('answers malformed JSON with the validation_error code part 7 names', async () => {
    const res = await request(build('internal')).post('/api/echo').set('content-type', 'application/json').send('{"broken":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'validation_error', message: 'Malformed JSON body', details: { errors: ['body is not valid JSON'] } });
  });

  it('writes {error: code, message, details}', async () => {
    const res = await request(build('internal')).get('/api/down');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'llm_service_unavailable', message: 'LLM provider unavailable', details: { retry_after: 5 } });
  });
});

describe('health and metrics', () => {
  it('answers 204 when every check passes, also under the alias prefix', async () => {
    const app = build('public', [{ name: 'database', check: async () => undefined }]);
    expect((await request(app).get('/_health')).status).toBe(204);
    expect((await request(app).get('/api/_health')).status).toBe(204);
  });

  it('answers 503 naming the failing dependency', async () => {
    const app = build('public', [
      { name: 'database', check: async () => undefined },
      {
        name: 'broker',
        check: async () => {
          throw new Error('connection refused');
        },
      },
    ]);
    const res = await request(app).get('/_health');
    expect(res.status).toBe(503);
    expect(res.body.failing).toEqual([{ name: 'broker', error: 'connection refused' }]);
  });

  it('asks for the bearer METRICS_TOKEN when one is set, at every metrics path', async () => {
    const app = createHttpApp(
      { logger: silentLogger, metrics: new Metrics('test'), health: [], errorStyle: 'public', aliasPrefixes: ['/api'], metricsToken: 'metrics-token-0123456789' },
      () => undefined,
    );
    for (const path of ['/metrics', '/api/metrics']) {
      const none = await request(app).get(path);
      expect(none.status).toBe(401);
      expect(none.body.error.name).toBe('UnauthorizedError');
      expect(none.text).not.toContain('http_request_duration_seconds');
      expect((await request(app).get(path).set('authorization', 'Bearer metrics-token-012345678')).status).toBe(401);
      const ok = await request(app).get(path).set('authorization', 'Bearer metrics-token-0123456789');
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('http_request_duration_seconds');
    }
  });

  it('counts requests by route and status in Prometheus format', async () => {
    const app = build('public');
    await request(app).get('/api/missing');
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/missing"[^}]*status_code="404"[^}]*\} 1/);
  });
});

describe('createHttpApp rawBodyPaths', () => {
  const app = createHttpApp({ logger: silentLogger, metrics: new Metrics('test'), health: [], errorStyle: 'public', bodyLimit: '1kb', rawBodyPaths: ['/api/import'] }, (a) => {
    for (const route of ['/api/import', '/api/echo']) {
      a.post(route, (req, res) => {
        if (req.readableEnded) return void res.json({ parsed: true, raw: '' });
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => res.json({ parsed: req.body !== undefined && Object.keys(req.body as object).length > 0, raw: Buffer.concat(chunks).toString('utf8') }));
      });
    }
  });

  it('streams the body of a raw path to the route whatever its type (text/plain, JSON), past the JSON body limit', async () => {
    const text = await request(app).post('/api/import?user_id=1').set('content-type', 'text/plain').send('plain text file');
    expect(text.status).toBe(200);
    expect(text.body).toEqual({ parsed: false, raw: 'plain text file' });
    const big = JSON.stringify({ data: 'x'.repeat(4096) });
    const json = await request(app).post('/api/import').set('content-type', 'application/json').send(big);
    expect(json.body).toEqual({ parsed: false, raw: big });
  });

  it('leaves other paths as they were: text/plain refused, JSON parsed', async () => {
    expect((await request(app).post('/api/echo').set('content-type', 'text/plain').send('x')).status).toBe(415);
    expect((await request(app).post('/api/echo').send({ a: 1 })).body).toEqual({ parsed: true, raw: '' });
    expect(
      (
        await request(app)
          .post('/api/echo')
          .set('content-type', 'application/json')
          .send(JSON.stringify({ data: 'x'.repeat(4096) }))
      ).status,
    ).toBe(413);
  });
});
