import type { NextFunction, Request, RequestHandler, Response } from 'express';
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

export function createRequireAuth(authenticator: PassportAuthenticator, events: AuthEvents, jwt?: Pick<JwtAuthentication, 'fromVerifiedToken'>): RequestHandler {
  const settle = (req: Request, next: NextFunction, user: AuthUser | false | undefined, info: unknown) => {
    if (!user) {
      events.record('token_rejected');
      return next(new UnauthorizedError(messageOf(info)));
    }
    setCurrentUser(req, user);
    const ctx = currentContext();
    if (ctx) ctx.userId = user.id;
    return next();
  };
  return (req: Request, res: Response, next: NextFunction) => {
    // A token that verified before skips passport's signature check; its user is still resolved now.
    const known = jwt?.fromVerifiedToken(req);
    if (known) {
      known.then(
        (result) => (typeof result === 'string' ? settle(req, next, false, { message: result }) : settle(req, next, result, undefined)),
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
