import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import type passport from 'passport';
import { currentContext, ForbiddenError, UnauthorizedError } from '@docflow/service-kit';
import type { UserRole } from '../users/user-role';
import type { AuthEvents } from './auth-events';
import type { JwtAuthentication } from './jwt.strategy';
import { AuthUser, currentUser, setCurrentUser } from './auth-user';
import type { StepUpService } from './step-up.service';

/** The middlewares every feature uses to protect its routes. */
export interface AuthGuards {
  /** 401 unless a valid, unrevoked bearer token of an active user is presented. */
  requireAuth: RequestHandler;
  /** 403 unless the caller (after requireAuth) has the role. */
  requireRole(role: UserRole): RequestHandler;
  /** 403 unless the caller (after requireAuth) sends `X-Step-Up-Verified: true` and holds a live step-up grant. */
  requireStepUp: RequestHandler;
  /** requireAuth for the request lane: only for a token that verified before (undefined otherwise: express serves the request). */
  knownToken: KnownTokenAuth;
}

/** A passport Authenticator instance (one per app). */
export type PassportAuthenticator = InstanceType<(typeof passport)['Authenticator']>;

export const STEP_UP_HEADER = 'x-step-up-verified';

function messageOf(info: unknown): string {
  if (info instanceof Error) {
    if (info.name === 'TokenExpiredError') return 'Token has expired';
    if (info.message === 'No auth token') return 'Missing bearer token';
    return 'Invalid token';
  }
  if (info && typeof info === 'object' && typeof (info as { message?: unknown }).message === 'string') {
    return (info as { message: string }).message;
  }
  return 'Invalid token';
}

/**
 * requireAuth without passport, for a request whose bearer token verified
 * before (the request lane, server.ts): undefined when passport must verify
 * the token. The user is resolved at once; `settle` (called where
 * requireAuth would run, after the body was read) answers the caller as
 * requireAuth does, or throws its 401.
 */
export type KnownTokenAuth = (req: IncomingMessage) => { settle(): Promise<AuthUser> } | undefined;

export function createKnownTokenAuth(events: AuthEvents, jwt: Pick<JwtAuthentication, 'fromVerifiedToken'>): KnownTokenAuth {
  return (req) => {
    const known = jwt.fromVerifiedToken(req as Request);
    if (!known) return undefined;
    // Observed now: the lane reads the body before it settles, and a rejection must not go unhandled meanwhile.
    const outcome = known.then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    return {
      async settle() {
        const o = await outcome;
        if ('error' in o) throw o.error;
        if (typeof o.result === 'string') {
          events.record('token_rejected');
          throw new UnauthorizedError(o.result);
        }
        signIn(req as Request, o.result);
        return o.result;
      },
    };
  };
}

/** The caller of a request that passed requireAuth: on the request, and in the request's context (logs). */
function signIn(req: Request, user: AuthUser): void {
  setCurrentUser(req, user);
  const ctx = currentContext();
  if (ctx) ctx.userId = user.id;
}

export function createRequireAuth(authenticator: PassportAuthenticator, events: AuthEvents, known?: KnownTokenAuth): RequestHandler {
  const settle = (req: Request, next: NextFunction, user: AuthUser | false | undefined, info: unknown) => {
    if (!user) {
      events.record('token_rejected');
      return next(new UnauthorizedError(messageOf(info)));
    }
    signIn(req, user);
    return next();
  };
  return (req: Request, res: Response, next: NextFunction) => {
    // A token that verified before skips passport's signature check; its user is still resolved now.
    const admitted = known?.(req);
    if (admitted) {
      admitted.settle().then(
        () => next(),
        (err: unknown) => next(err),
      );
      return;
    }
    const handler = authenticator.authenticate('jwt', { session: false }, (err: unknown, user: AuthUser | false | undefined, info: unknown) => {
      if (err) return next(err);
      return settle(req, next, user, info);
    }) as RequestHandler;
    void handler(req, res, next);
  };
}

export function requireRole(role: UserRole): RequestHandler {
  return (req, _res, next) => {
    const user = currentUser(req);
    if (user.role !== role) return next(new ForbiddenError(`This action needs the ${role} role`));
    return next();
  };
}

export function createRequireStepUp(stepUp: StepUpService, events: AuthEvents): RequestHandler {
  return async (req, _res, next) => {
    const user = currentUser(req);
    const header = req.header(STEP_UP_HEADER);
    if (header?.trim().toLowerCase() !== 'true') {
      events.record('step_up_required');
      throw new ForbiddenError('Step-up verification required', { errors: ['send X-Step-Up-Verified: true after POST /auth/step-up/verify'] });
    }
    if (!(await stepUp.hasGrant(user))) {
      events.record('step_up_required');
      throw new ForbiddenError('Step-up verification required', { errors: ['no valid step-up verification for this token; use POST /auth/step-up'] });
    }
    next();
  };
}
