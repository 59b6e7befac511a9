import { parseArgs } from 'node:util';
import { AppError, errorMessage } from '@docflow/service-kit';
import { PASSWORD_MIN_LENGTH } from './password';
import type { NewUser, UsersService } from './users.service';

export const USER_CREATE_USAGE = 'usage: npm run user:create -- --email E --username U --password P [--super-admin]';

export type ParsedUserCreateArgs = { ok: true; user: NewUser } | { ok: false; errors: string[] };

/** Parses `--email E --username U --password P [--super-admin]` (also `--email=E`). */
export function parseUserCreateArgs(argv: readonly string[]): ParsedUserCreateArgs {
  let values: { email?: string; username?: string; password?: string; 'super-admin'?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { email: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' }, 'super-admin': { type: 'boolean', default: false } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return { ok: false, errors: [errorMessage(err)] };
  }
  const errors: string[] = [];
  for (const name of ['email', 'username', 'password'] as const) {
    if (!values[name]) errors.push(`--${name} is required`);
  }
  if (values.password && values.password.length < PASSWORD_MIN_LENGTH) errors.push(`--password must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    user: { email: values.email ?? '', username: values.username ?? '', password: values.password ?? '', role: values['super-admin'] ? 'super_admin' : 'user' },
  };
}

export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
}

/**
 * `user:create`: creates one account and prints `created user <id> <username>`.
 * Returns the exit code: 0 on success, 1 on bad arguments or an existing email or username.
 */
export async function runUserCreate(argv: readonly string[], users: UsersService, output: CommandOutput): Promise<number> {
  const parsed = parseUserCreateArgs(argv);
  if (!parsed.ok) {
    for (const e of parsed.errors) output.err(`error: ${e}`);
    output.err(USER_CREATE_USAGE);
    return 1;
  }
  try {
    const user = await users.create(parsed.user);
    output.out(`created user ${user.id} ${user.username}`);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const details = Array.isArray(err.details.errors) ? (err.details.errors as unknown[]).map(String) : [];
    output.err(`error: ${err.message}${details.length ? `: ${details.join('; ')}` : ''}`);
    return 1;
  }
}
