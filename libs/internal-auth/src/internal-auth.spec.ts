import express from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { createHttpApp, Metrics, silentLogger } from '@docflow/service-kit';
import { PUBLIC_API_TOKEN_ISSUER, requireApiKey, requireServiceAuth, signServiceToken, verifyServiceToken } from './internal-auth';
import { signJobUser, verifyJobUser } from './job-user';

const SECRET = 'internal-secret-0123456789abcdef';
const SERVICE_KEY = 'service-key-0123456789abcdef';

function build(): express.Express {
  return createHttpApp({ logger: silentLogger, metrics: new Metrics('test'), health: [], errorStyle: 'public' }, (app) => {
    app.get('/internal', requireServiceAuth({ serviceKey: SERVICE_KEY, jwtSecret: SECRET }), (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/router', requireApiKey('x-api-key', 'router-key'), (_req, res) => {
      res.json({ ok: true });
    });
  });
}

describe('verifyServiceToken', () => {
  it('accepts our own service tokens and names the service', () => {
    expect(verifyServiceToken(SECRET, signServiceToken(SECRET, 'workflow-processor'))).toEqual({ service: 'workflow-processor' });
  });

  it('accepts any HS256 token signed with the shared secret (spec 5 asks no more), naming the service by sub or iss', () => {
    expect(verifyServiceToken(SECRET, jwt.sign({ sub: 'test-suite' }, SECRET, { algorithm: 'HS256', expiresIn: 60 }))).toEqual({ service: 'test-suite' });
    expect(verifyServiceToken(SECRET, jwt.sign({}, SECRET, { algorithm: 'HS256', issuer: 'extraction-processor', expiresIn: 60 }))).toEqual({ service: 'extraction-processor' });
    expect(verifyServiceToken(SECRET, jwt.sign({ any: 'claim' }, SECRET, { algorithm: 'HS256', expiresIn: '1h' }))).toEqual({ service: 'unknown' });
  });

  it('refuses a service token without exp, or one valid for more than a day', () => {
    expect(() => verifyServiceToken(SECRET, jwt.sign({ svc: 'x' }, SECRET, { algorithm: 'HS256' }))).toThrow(/must carry exp/);
    expect(() => verifyServiceToken(SECRET, jwt.sign({ svc: 'x' }, SECRET, { algorithm: 'HS256', expiresIn: 2 * 86400 }))).toThrow(/longer than a day/);
    expect(verifyServiceToken(SECRET, jwt.sign({ svc: 'x' }, SECRET, { algorithm: 'HS256', expiresIn: 86400 - 60 }))).toEqual({ service: 'x' });
  });

  it('refuses tokens signed otherwise, expired, meant for another audience, or issued to users', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(() => verifyServiceToken(SECRET, jwt.sign({ sub: 'x' }, 'another-secret-0123456789abcdef', { algorithm: 'HS256' }))).toThrow();
    expect(() => verifyServiceToken(SECRET, jwt.sign({ sub: 'x' }, SECRET, { algorithm: 'HS512' }))).toThrow();
    expect(() => verifyServiceToken(SECRET, jwt.sign({ sub: 'x', exp: now - 10 }, SECRET, { algorithm: 'HS256' }))).toThrow();
    expect(() => verifyServiceToken(SECRET, jwt.sign({ sub: 'x' }, SECRET, { algorithm: 'HS256', audience: 'someone-else' }))).toThrow();
    // Refused even should an operator give the user tokens' secret to the services too.
    expect(() => verifyServiceToken(SECRET, jwt.sign({ sub: '1', role: 'user' }, SECRET, { algorithm: 'HS256', issuer: PUBLIC_API_TOKEN_ISSUER }))).toThrow();
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.`;
    expect(() => verifyServiceToken(SECRET, unsigned)).toThrow();
  });
});

describe('requireServiceAuth', () => {
  const app = build();

  it('lets X-Service-Key and a bearer service token through, whatever the case of the scheme', async () => {
    await request(app).get('/internal').set('x-service-key', SERVICE_KEY).expect(200);
    const token = signServiceToken(SECRET, 'workflow-processor');
    await request(app).get('/internal').set('authorization', `Bearer ${token}`).expect(200);
    await request(app).get('/internal').set('authorization', `bearer ${token}`).expect(200);
  });

  it('answers 401 UnauthorizedError for a wrong key, a bad token or no credentials', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ 'x-service-key': 'wrong' }, 'Invalid service key'],
      [{ authorization: 'Bearer not.a.token' }, 'Invalid service token'],
      [{ authorization: `Bearer ${jwt.sign({ svc: 'forever' }, SECRET, { algorithm: 'HS256' })}` }, 'Invalid service token'],
      [{}, 'Missing service credentials'],
    ];
    for (const [headers, message] of cases) {
      const res = await request(app).get('/internal').set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { status: 401, name: 'UnauthorizedError', message, details: {} } });
    }
  });
});

describe('requireApiKey', () => {
  it('checks the header and answers 401 without it or with a wrong key', async () => {
    const app = build();
    await request(app).get('/router').set('x-api-key', 'router-key').expect(200);
    expect((await request(app).get('/router')).status).toBe(401);
    expect((await request(app).get('/router').set('x-api-key', 'router-kez')).status).toBe(401);
  });
});

describe('signJobUser / verifyJobUser', () => {
  it('binds a user to one job under one secret', () => {
    const sig = signJobUser(SECRET, 'wf_12', 3);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(verifyJobUser(SECRET, 'wf_12', 3, sig)).toBe(true);
    expect(verifyJobUser(SECRET, 'wf_12', 4, sig)).toBe(false);
    expect(verifyJobUser(SECRET, 'wf_13', 3, sig)).toBe(false);
    expect(verifyJobUser('another-secret-0123456789abcdef', 'wf_12', 3, sig)).toBe(false);
    expect(verifyJobUser(SECRET, 'wf_12', 3, undefined)).toBe(false);
    expect(verifyJobUser(SECRET, 'wf_12', 3, '')).toBe(false);
  });
});
