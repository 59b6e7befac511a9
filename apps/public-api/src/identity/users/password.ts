import bcrypt from 'bcryptjs';

export const BCRYPT_COST = 10;
export const PASSWORD_MIN_LENGTH = 8;
/** bcrypt only reads the first 72 bytes; longer passwords are refused rather than silently truncated. */
export const PASSWORD_MAX_BYTES = 72;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

let dummy: Promise<string> | undefined;

/**
 * A hash of nothing in particular, compared against when the identifier
 * matches no user, so that an unknown user takes as long as a wrong password.
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= bcrypt.hash('docflow-timing-equaliser', BCRYPT_COST);
  return dummy;
}
