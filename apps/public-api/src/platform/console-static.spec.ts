import express from 'express';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { CONSOLE_CSP, consoleStatic } from './console-static';

function builtConsole(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'console-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Docflow</title><script type="module" src="/assets/index-abc.js"></script>');
  writeFileSync(path.join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

function appWith(dir: string): express.Express {
  const app = express();
  app.get('/api/ping', (_req, res) => res.json({ ok: true }));
  const served = consoleStatic(dir);
  if (served) app.use(served);
  app.use((_req, res) => res.status(404).json({ error: { status: 404, name: 'NotFoundError' } }));
  return app;
}

describe('consoleStatic', () => {
  const app = appWith(builtConsole());

  it('serves index.html at / and at client routes, uncached, with a strict CSP and no inline script allowed', async () => {
    for (const p of ['/', '/executions', '/executions/42', '/activities/7/edit']) {
      const res = await request(app).get(p);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('<title>Docflow</title>');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-(inline|eval)/);
  });

  it('serves hashed assets as immutable and other files uncached', async () => {
    const asset = await request(app).get('/assets/index-abc.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);
    const icon = await request(app).get('/favicon.svg');
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('leaves /api, health and metrics alone, and answers 404 for a missing file instead of the app', async () => {
    expect((await request(app).get('/api/ping')).body).toEqual({ ok: true });
    const unknownApi = await request(app).get('/api/nothing-here');
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.body.error.name).toBe('NotFoundError');
    expect((await request(app).get('/_health')).status).toBe(404);
    expect((await request(app).get('/assets/missing-123.js')).status).toBe(404);
    expect((await request(app).post('/executions')).status).toBe(404);
  });

  it('mounts nothing when the console is not built', () => {
    expect(consoleStatic(mkdtempSync(path.join(tmpdir(), 'no-console-')))).toBeUndefined();
  });
});
