import type { NextFunction, Request, RequestHandler, Response } from 'express';
import jwt from 'jsonwebtoken';
import { createSecretKey, KeyObject, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { UnauthorizedError } from '@docflow/service-kit';

/** Constant-time string comparison that does not leak the length through early exit. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export const SERVICE_JWT_AUDIENCE = 'docflow-internal';

/** Issuer of the public API's user access tokens; such a token is never a service token. */
export const PUBLIC_API_TOKEN_ISSUER = 'docflow-public-api';

const hmacKeys = new Map<string, KeyObject>();

/**
 * The HMAC key object of a JWT secret, made once per secret. jsonwebtoken
 * otherwise tries to parse every string secret as a PEM public key first and
 * builds an exception on each call, which cost ~20 ms of CPU per request.
 */
export function hmacKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    hmacKeys.set(secret, key);
  }
  return key;
}

/** Signs a short-lived HS256 service token (issuer = calling service). */
export function signServiceToken(secret: string, service: string, ttlSeconds = 300): string {
  return jwt.sign({ svc: service }, hmacKey(secret), { algorithm: 'HS256', expiresIn: ttlSeconds, audience: SERVICE_JWT_AUDIENCE, issuer: service });
}

/** The longest a service token may still be valid for when it arrives. */
export const MAX_SERVICE_TOKEN_LIFETIME_SECONDS = 24 * 3600;

/**
 * Spec 5 asks of a service JWT only that it is signed with HS256 with the
 * shared secret, so any such token is accepted, not only ours: it must
 * carry `exp` (issue #13: a token without one was valid forever) no more
 * than a day ahead, be for SERVICE_JWT_AUDIENCE when it has `aud`, and never
 * be a user token of the public API (should an operator reuse that secret).
 * The service is named by `svc`, else `sub`, else `iss`.
 */
export function verifyServiceToken(secret: string, token: string): { service: string } {
  const payload = jwt.verify(token, hmacKey(secret), { algorithms: ['HS256'] });
  if (typeof payload !== 'object' || payload === null) throw new Error('not a service token');
  const { aud, iss, exp } = payload;
  if (typeof exp !== 'number') throw new Error('a service token must carry exp');
  if (exp - Date.now() / 1000 > MAX_SERVICE_TOKEN_LIFETIME_SECONDS) throw new Error('a service token may not live longer than a day');
  if (aud !== undefined && !(Array.isArray(aud) ? aud : [aud]).includes(SERVICE_JWT_AUDIENCE)) throw new Error('token is for another audience');
  if (iss === PUBLIC_API_TOKEN_ISSUER) throw new Error('a user token is not a service token');
  const name = [(payload as { svc?: unknown }).svc, payload.sub, iss].find((v): v is string => typeof v === 'string' && v.length > 0);
  return { service: name ?? 'unknown' };
}

export interface ServiceAuthOptions {
  serviceKey: string;
  jwtSecret: string;
}

/**
 * Internal endpoints: `X-Service-Key: <SERVICE_KEY>` or
 * `Authorization: Bearer <HS256 service JWT>` (spec 5).
 */
export function requireServiceAuth(options: ServiceAuthOptions): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const refused = serviceCredentialsRefusal(req.headers, options);
    return refused ? next(refused) : next();
  };
}

/** What requireServiceAuth answers for these headers: nothing when they carry a valid service credential. */
export function serviceCredentialsRefusal(headers: IncomingHttpHeaders, options: ServiceAuthOptions): UnauthorizedError | undefined {
  const key = headers['x-service-key'];
  if (key !== undefined) return typeof key === 'string' && safeEqual(key, options.serviceKey) ? undefined : new UnauthorizedError('Invalid service key');
  const bearer = /^Bearer +(\S+) *$/i.exec(headers.authorization ?? '');
  if (bearer) {
    try {
      verifyServiceToken(options.jwtSecret, bearer[1]!);
      return undefined;
    } catch {
      return new UnauthorizedError('Invalid service token');
    }
  }
  return new UnauthorizedError('Missing service credentials');
}

/** A static API key in a header, compared in constant time (the router's `X-API-Key`). */
export function requireApiKey(header: string, expected: string): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const refused = apiKeyRefusal(req.header(header), header, expected);
    return refused ? next(refused) : next();
  };
}

/** What requireApiKey answers for the header's value (`got`): nothing when it is the key. */
export function apiKeyRefusal(got: string | string[] | undefined, header: string, expected: string): UnauthorizedError | undefined {
  if (got === undefined) return new UnauthorizedError(`Missing ${header} header`);
  // express's req.header joins nothing: a repeated header reaches it as node's comma-joined string, as here.
  const value = Array.isArray(got) ? got.join(', ') : got;
  if (!safeEqual(value, expected)) return new UnauthorizedError(`Invalid ${header}`);
  return undefined;
}
