import express, { type RequestHandler, type Response } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The web console's Content-Security-Policy: scripts and styles only from
 * this origin's files (no inline script, no eval), API calls only to this
 * origin, document previews from blob: URLs the console makes itself, and no
 * framing by other sites.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(res: Response): void {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
}

/** Paths that belong to the API and the service endpoints, never to the console. */
const NOT_CONSOLE = /^\/(api|_health|metrics)(\/|$)/;

/**
 * Serves the built console (dist/apps/console) at `/`: hashed files under
 * /assets/ are cached for a year, every other path without a file extension
 * is a client-side route and gets index.html (never cached, so a new build is
 * picked up at once). The API stays under /api and keeps its JSON 404s.
 * Returns undefined when the console is not built.
 */
export function consoleStatic(dir: string): RequestHandler | undefined {
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const files = express.static(dir, {
    index: false,
    fallthrough: true,
    redirect: false,
    setHeaders: (res, file) => {
      secure(res);
      const immutable = file.startsWith(path.join(dir, 'assets') + path.sep);
      res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const router = express.Router();
  router.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_CONSOLE.test(req.path)) return next();
    files(req, res, () => {
      // A missing asset is a 404 (the JSON one), not the app: only extension-less paths are routes.
      if (path.extname(req.path) !== '') return next();
      secure(res);
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
    });
  });
  return router;
}
