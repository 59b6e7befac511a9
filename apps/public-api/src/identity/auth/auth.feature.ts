import type { Router } from 'express';
import passport from 'passport';
import type { Mailer } from '@docflow/mail';
import { BadRequestError, Logger, Metrics, validatePlain } from '@docflow/service-kit';
import type { ApiFeature, PlatformServices, PublicApiConfig, PublicApiDatabase, RateLimits } from '../../platform';
import type { UsersService } from '../users/users.service';
import type { AuditLog } from '../audit/audit-log';
import { AuthEvents } from './auth-events';
import { currentUser } from './auth-user';
import { LoginBody, StepUpVerifyBody } from './auth.dto';
import { describeAuthRoutes } from './auth.openapi';
import { AuthService } from './auth.service';
import { AuthGuards, createKnownTokenAuth, createRequireAuth, createRequireStepUp, requireRole } from './guards';
import { createJwtAuthentication } from './jwt.strategy';
import { LoginThrottle } from './login-throttle';
import { PrincipalCache } from './principal-cache';
import { RevokedTokensRepository } from './revoked-tokens.repository';
import { StepUpRepository } from './step-up.repository';
import { StepUpService } from './step-up.service';

export interface AuthFeatureDeps {
  config: Pick<PublicApiConfig, 'JWT_SECRET' | 'JWT_EXPIRES_IN_SECONDS' | 'LOGIN_MAX_FAILURES_PER_ACCOUNT' | 'LOGIN_MAX_FAILURES_PER_ADDRESS' | 'LOGIN_THROTTLE_WINDOW_SECONDS'>;
  database: PublicApiDatabase;
  users: UsersService;
  mailer: Mailer;
  logger: Logger;
  metrics: Metrics;
  audit: AuditLog;
  limits: RateLimits;
}

export interface AuthFeature {
  guards: AuthGuards;
  feature: ApiFeature<Pick<PlatformServices, 'openapi'>>;
  /** Inactive until main listens for auth changes (see PrincipalCache). */
  principals: PrincipalCache;
}

/** Builds authentication for one app: the passport-jwt strategy, the guards and the /auth routes. */
export function createAuthFeature(deps: AuthFeatureDeps): AuthFeature {
  const events = new AuthEvents(deps.metrics, deps.logger, deps.audit);
  const revocations = new RevokedTokensRepository(deps.database);
  const principals = new PrincipalCache();
  const stepUp = new StepUpService({ repo: new StepUpRepository(deps.database), mailer: deps.mailer, events, limits: deps.limits, secret: deps.config.JWT_SECRET });
  const auth = new AuthService({
    users: deps.users,
    revocations,
    principals,
    stepUp,
    events,
    throttle: new LoginThrottle(deps.limits, events, {
      maxFailuresPerAccount: deps.config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerAddress: deps.config.LOGIN_MAX_FAILURES_PER_ADDRESS,
      windowSeconds: deps.config.LOGIN_THROTTLE_WINDOW_SECONDS,
    }),
    jwtSecret: deps.config.JWT_SECRET,
    jwtExpiresInSeconds: deps.config.JWT_EXPIRES_IN_SECONDS,
  });

  // An authenticator of its own per app, so apps built side by side (tests) never share strategies.
  const authenticator = new passport.Authenticator();
  const jwt = createJwtAuthentication({ secret: deps.config.JWT_SECRET, revocations, principals });
  authenticator.use('jwt', jwt.strategy);
  const knownToken = createKnownTokenAuth(events, jwt);
  const guards: AuthGuards = {
    requireAuth: createRequireAuth(authenticator, events, knownToken),
    requireRole,
    requireStepUp: createRequireStepUp(stepUp, events),
    knownToken,
  };

  const feature: ApiFeature<Pick<PlatformServices, 'openapi'>> = {
    name: 'auth',
    register(api: Router, ctx) {
      api.post('/auth/local', async (req, res) => {
        const body = validatePlain(LoginBody, req.body);
        if (!body.ok) throw BadRequestError.withErrors('identifier and password are required', body.errors);
        res.json(await auth.login(body.value.identifier, body.value.password, req.ip ?? req.socket.remoteAddress ?? 'unknown'));
      });

      api.post('/auth/logout', guards.requireAuth, async (req, res) => {
        await auth.logout(currentUser(req));
        res.json({ message: 'Logged out' });
      });

      api.post('/auth/logout-all', guards.requireAuth, async (req, res) => {
        await auth.logoutAll(currentUser(req));
        res.json({ message: 'Logged out everywhere' });
      });

      api.post('/auth/step-up', guards.requireAuth, async (req, res) => {
        await stepUp.requestCode(currentUser(req));
        res.json({ message: 'A verification code has been sent to your email address' });
      });

      api.post('/auth/step-up/verify', guards.requireAuth, async (req, res) => {
        const body = validatePlain(StepUpVerifyBody, req.body);
        if (!body.ok) throw BadRequestError.withErrors('Invalid verification code', body.errors);
        const { expiresIn } = await stepUp.verify(currentUser(req), body.value.code);
        res.json({ message: 'Step-up verification succeeded', expiresIn });
      });

      describeAuthRoutes(ctx.openapi);
    },
  };

  return { guards, feature, principals };
}
