// What other features of the public API use from auth.
export { currentUser } from './auth-user';
export type { AuthUser } from './auth-user';
export { requireRole, STEP_UP_HEADER } from './guards';
export type { AuthGuards } from './guards';
export { JWT_ALGORITHM, JWT_ISSUER, signAccessToken } from './tokens';
export type { AccessTokenClaims, SignedAccessToken } from './tokens';
export { STEP_UP_GRANT_TTL_SECONDS } from './step-up.service';
