import { PasswordPool, type PasswordPoolOptions } from './password-pool';

export const BCRYPT_COST = 10;
export const PASSWORD_MIN_LENGTH = 8;
/** bcrypt only reads the first 72 bytes; longer passwords are refused rather than silently truncated. */
export const PASSWORD_MAX_BYTES = 72;

/** The defaults of PASSWORD_HASH_THREADS and PASSWORD_HASH_MAX_QUEUE. */
export const DEFAULT_PASSWORD_POOL: PasswordPoolOptions = { threads: 2, maxQueue: 200 };

let pool: PasswordPool | undefined;

/** Sets the size of the process's hashing pool (once, at boot: a running pool keeps its size). */
export function configurePasswordHashing(options: PasswordPoolOptions): void {
  pool ??= new PasswordPool(options);
}

function passwordPool(): PasswordPool {
  pool ??= new PasswordPool(DEFAULT_PASSWORD_POOL);
  return pool;
}

/** bcrypt on the hashing pool's threads, off the event loop (see PasswordPool). */
export async function hashPassword(password: string): Promise<string> {
  return String(await passwordPool().run({ op: 'hash', password, cost: BCRYPT_COST }));
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  return (await passwordPool().run({ op: 'compare', password, hash })) === true;
}

let dummy: Promise<string> | undefined;

/**
 * A hash of nothing in particular, compared against when the identifier
 * matches no user, so that an unknown user takes as long as a wrong password.
 */
export function dummyPasswordHash(): Promise<string> {
  // A failed attempt (the pool busy) is not kept: the next login tries again.
  dummy ??= hashPassword('docflow-timing-equaliser').catch((err: unknown) => {
    dummy = undefined;
    throw err;
  });
  return dummy;
}
