import type { Request } from 'express';
import { UnauthorizedError } from '@docflow/service-kit';
import type { UserRole } from '../users/user-role';

/** The caller of a request that passed requireAuth. */
export interface AuthUser {
  id: number;
  username: string;
  email: string;
  /** From the database, or from the principal cache that every change to the user empties (see PrincipalCache). */
  role: UserRole;
  /** The presented token's id (what logout revokes and step-up grants attach to). */
  jti: string;
  /** The presented token's expiry, seconds since the epoch. */
  exp: number;
}

const users = new WeakMap<Request, AuthUser>();

export function setCurrentUser(req: Request, user: AuthUser): void {
  users.set(req, user);
  req.user = user;
}

/** The authenticated caller; a 401 when the route forgot requireAuth. */
export function currentUser(req: Request): AuthUser {
  const user = users.get(req);
  if (!user) throw new UnauthorizedError('Authentication required');
  return user;
}
