import type { RequestListener } from 'node:http';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { NotFoundError } from './errors';
import { createHttpApp } from './http';
import { type LaneCall, requestLane } from './json-lane';
import { silentLogger } from './logger';
import { Metrics } from './metrics';

/** What the route saw, so a test can tell which path served a request. */
interface Seen {
  by: 'lane' | 'express';
  id?: string;
  query?: string | undefined;
  body: unknown;
}

const ADMIT = 'x-admit';

function build(): { app: RequestListener; lane: RequestListener; metrics: Metrics } {
  const metrics = new Metrics('lane-test');
  const answer = (seen: Seen) => {
    if (seen.id === '0') throw new NotFoundError('Thing not found');
    if (seen.id === '500') throw new Error('secret detail at /srv/file.ts:1');
    return seen;
  };
  const app = createHttpApp({ logger: silentLogger, metrics, health: [], errorStyle: 'public', bodyLimit: '1kb' }, (a) => {
    a.post('/api/things/:id/poke', (req, res) => {
      res.status(201).json(answer({ by: 'express', id: req.params['id'], body: req.body }));
    });
    a.get('/api/things/:id', (req, res) => {
      res.json(answer({ by: 'express', id: req.params['id'], query: req.query['wait'] as string | undefined, body: req.body }));
    });
  });
  const lane = requestLane({
    fallback: app,
    maxBodyBytes: 1024,
    errorStyle: 'public',
    logger: silentLogger,
    metrics,
    routes: [
      {
        method: 'POST',
        path: /^\/api\/things\/(\d+)\/poke$/,
        label: '/api/things/:id/poke',
        admit: (req, query) => (query === undefined && req.headers[ADMIT] === 'yes' ? true : undefined),
        handle: async ({ params, body }: LaneCall<boolean>) => ({ status: 201, body: answer({ by: 'lane', id: params[0], body }) }),
      },
      {
        method: 'GET',
        path: /^\/api\/things\/(\d+)$/,
        label: '/api/things/:id',
        admit: (req) => {
          if (req.headers[ADMIT] === 'throw') throw new Error('admit failed');
          return req.headers[ADMIT] === 'yes' ? true : undefined;
        },
        handle: async ({ params, query, res }: LaneCall<boolean>) => {
          if (query === 'own') {
            res.statusCode = 202;
            res.end('written by the route');
            return undefined;
          }
          return { status: 200, body: answer({ by: 'lane', id: params[0], query: query?.replace(/^wait=/, ''), body: undefined }) };
        },
      },
    ],
  });
  return { app, lane, metrics };
}

const { app, lane, metrics } = build();

describe('requestLane', () => {
  it('serves an admitted request with the route, its captures and the correlation id', async () => {
    const res = await request(lane).post('/api/things/7/poke').set(ADMIT, 'yes').set('X-Correlation-Id', 'abc-123').send({ a: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ by: 'lane', id: '7', body: { a: 1 } });
    expect(res.headers['x-correlation-id']).toBe('abc-123');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const got = await request(lane).get('/api/things/8?wait=5').set(ADMIT, 'yes');
    expect(got.body).toEqual({ by: 'lane', id: '8', query: '5' });
  });

  it('counts its requests in the request metric under the route express would name', async () => {
    await request(lane).post('/api/things/9/poke').set(ADMIT, 'yes').send({});
    const text = await metrics.render();
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*method="POST"[^}]*route="\/api\/things\/:id\/poke"[^}]*status_code="201"[^}]*\} [1-9]/);
  });

  it('leaves to express what it does not admit, another method or path, other bodies, and a GET with a body', async () => {
    const cases: Array<[string, request.Test]> = [
      ['a GET not admitted', request(lane).get('/api/things/7')],
      ['a GET whose admit throws', request(lane).get('/api/things/7').set(ADMIT, 'throw')],
      ['not admitted', request(lane).post('/api/things/7/poke').send({ a: 1 })],
      ['a query on a route that takes none', request(lane).post('/api/things/7/poke?x=1').set(ADMIT, 'yes').send({ a: 1 })],
      ['an id the path does not capture', request(lane).post('/api/things/abc/poke').set(ADMIT, 'yes').send({ a: 1 })],
      ['a JSON type of another charset', request(lane).post('/api/things/7/poke').set(ADMIT, 'yes').set('Content-Type', 'application/vnd.api+json').send('{"a":1}')],
      ['a compressed body', request(lane).post('/api/things/7/poke').set(ADMIT, 'yes').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send(gzipSync('{"a":1}'))],
      ['a GET with a body', request(lane).get('/api/things/7').set(ADMIT, 'yes').set('Content-Type', 'application/json').send('{"a":1}')],
    ];
    for (const [what, sent] of cases) {
      const res = await sent;
      // Express's own answer, whatever it is: never the lane's (body-encoding.spec.ts sends real compressed bodies).
      expect({ what, by: (res.body as Partial<Seen>).by }).not.toEqual({ what, by: 'lane' });
      expect(res.headers['x-correlation-id']).toBeDefined();
    }
    // text/plain gets express's 415, as every other route.
    const plain = await request(lane).post('/api/things/7/poke').set(ADMIT, 'yes').set('Content-Type', 'text/plain').send('{"a":1}');
    expect(plain.status).toBe(415);
  });

  // Each case sent to express's app and to the lane (admitted): the same status and body.
  const same: Array<[string, (target: RequestListener, admit: string) => request.Test]> = [
    ['no body', (t, admit) => request(t).post('/api/things/7/poke').set(ADMIT, admit)],
    ['an empty body', (t, admit) => request(t).post('/api/things/7/poke').set(ADMIT, admit).set('Content-Type', 'application/json').send('')],
    ['a body without a type', (t, admit) => request(t).post('/api/things/7/poke').set(ADMIT, admit).set('Content-Length', '7').send('{"a":1}').unset('Content-Type')],
    ['a byte order mark', (t, admit) => request(t).post('/api/things/7/poke').set(ADMIT, admit).set('Content-Type', 'application/json').send(Buffer.from('\ufeff{"a":2}', 'utf8'))],
    ['a scalar body', (t, admit) => request(t).post('/api/things/7/poke').set(ADMIT, admit).set('Content-Type', 'application/json').send('3')],
    ['malformed JSON', (t, admit) => request(t).post('/api/things/7/poke').set(ADMIT, admit).set('Content-Type', 'application/json').send('{"a":')],
    [
      'JSON nested too deeply',
      (t, admit) =>
        request(t)
          .post('/api/things/7/poke')
          .set(ADMIT, admit)
          .set('Content-Type', 'application/json')
          .send('['.repeat(70) + ']'.repeat(70)),
    ],
    [
      'a body over the limit',
      (t, admit) =>
        request(t)
          .post('/api/things/7/poke')
          .set(ADMIT, admit)
          .send({ a: 'x'.repeat(2000) }),
    ],
    ['text PostgreSQL cannot store', (t, admit) => request(t).post('/api/things/7/poke').set(ADMIT, admit).send({ a: 'nul\u0000' })],
    ['a route that throws an AppError', (t, admit) => request(t).post('/api/things/0/poke').set(ADMIT, admit).send({})],
    ['a GET without a query', (t, admit) => request(t).get('/api/things/4').set(ADMIT, admit)],
  ];
  it.each(same)('answers %s as express does', async (_what, send) => {
    const viaExpress = await send(app, 'no');
    const viaLane = await send(lane, 'yes');
    expect(viaLane.status).toBe(viaExpress.status);
    const strip = (body: unknown) => (body && typeof body === 'object' && 'by' in body ? { ...body, by: undefined } : body);
    expect(strip(viaLane.body)).toEqual(strip(viaExpress.body));
    expect(viaLane.headers['content-type']).toBe(viaExpress.headers['content-type']);
  });

  it('answers an unexpected error as a 500 with an error id and nothing of the error', async () => {
    const res = await request(lane).post('/api/things/500/poke').set(ADMIT, 'yes').send({});
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ status: 500, name: 'InternalServerError', details: { errorId: expect.any(String) } });
    expect(JSON.stringify(res.body)).not.toContain('secret');
  });

  it('writes nothing itself when the route answered on its own', async () => {
    const res = await request(lane).get('/api/things/4?own').set(ADMIT, 'yes');
    expect(res.status).toBe(202);
    expect(res.text).toBe('written by the route');
  });
});
