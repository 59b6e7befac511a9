import bcrypt from 'bcryptjs';
import { openTestBed, TestBed } from '../../test-support/test-app';
import { runUserCreate } from './user-create.command';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

let bed: TestBed;
let users: UsersService;

async function run(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runUserCreate(argv, users, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

beforeAll(async () => {
  bed = await openTestBed();
  users = new UsersService(new UsersRepository(bed.database));
});

afterAll(async () => {
  await bed?.close();
});

describe('user:create', () => {
  it('creates a user, lower-casing the email and hashing the password with bcrypt cost 10', async () => {
    const result = await run('--email', 'Carol@Example.COM', '--username', 'carol', '--password', 'Carol#Pass1');
    expect(result.code).toBe(0);
    const rows = (await bed.database.query("SELECT id, email, role, password_hash FROM users WHERE username = 'carol'")) as { id: number; email: string; role: string; password_hash: string }[];
    expect(rows).toHaveLength(1);
    expect(result.out).toEqual([`created user ${rows[0]!.id} carol`]);
    expect(rows[0]!.email).toBe('carol@example.com');
    expect(rows[0]!.role).toBe('user');
    expect(rows[0]!.password_hash).toMatch(/^\$2[aby]\$10\$/);
    expect(await bcrypt.compare('Carol#Pass1', rows[0]!.password_hash)).toBe(true);
  });

  it('creates a super administrator with --super-admin', async () => {
    const result = await run('--email=root@example.com', '--username=root', '--password=Root#Pass1', '--super-admin');
    expect(result.code).toBe(0);
    const rows = (await bed.database.query("SELECT role FROM users WHERE username = 'root'")) as { role: string }[];
    expect(rows[0]!.role).toBe('super_admin');
  });

  it('exits 1 naming the field when the email or the username (in any case) exists', async () => {
    const email = await run('--email', 'CAROL@example.com', '--username', 'carol2', '--password', 'Carol#Pass1');
    expect(email.code).toBe(1);
    expect(email.err.join('\n')).toContain('A user with this email already exists');
    const username = await run('--email', 'other@example.com', '--username', 'CaRoL', '--password', 'Carol#Pass1');
    expect(username.code).toBe(1);
    expect(username.err.join('\n')).toContain('A user with this username already exists');
    const count = (await bed.database.query('SELECT count(*)::int AS n FROM users')) as { n: number }[];
    expect(count[0]!.n).toBe(2);
  });

  it('exits 1 when an argument is missing or the password is shorter than 8', async () => {
    const missing = await run('--email', 'dan@example.com', '--password', 'Dan#Pass12');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('error: --username is required');
    const short = await run('--email', 'dan@example.com', '--username', 'dan', '--password', 'short');
    expect(short.code).toBe(1);
    expect(short.err).toContain('error: --password must be at least 8 characters');
    const invalid = await run('--email', 'not-an-email', '--username', 'dan', '--password', 'Dan#Pass12');
    expect(invalid.code).toBe(1);
    expect(invalid.err.join('\n')).toContain('email must be a valid email address');
    const rows = (await bed.database.query("SELECT 1 FROM users WHERE username = 'dan'")) as unknown[];
    expect(rows).toHaveLength(0);
  });
});
