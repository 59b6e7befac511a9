import request from 'supertest';
import { loadConfig } from '@docflow/service-kit';
import { PublicApiConfig } from '../../platform';
import { buildTestApp, openTestBed, recordingLogger, TestBed } from '../../test-support/test-app';
import { UsersRepository } from '../users/users.repository';
import { UsersService } from '../users/users.service';
import { demoUsersWanted, seedDemoUsers } from './demo-users';

let bed: TestBed;
let users: UsersService;

beforeAll(async () => {
  bed = await openTestBed();
  users = new UsersService(new UsersRepository(bed.database));
});

afterAll(async () => {
  await bed?.close();
});

describe('demo users', () => {
  it('creates admin, alice and bob with the documented passwords and roles', async () => {
    expect(await seedDemoUsers(users, recordingLogger())).toEqual({ created: ['admin', 'alice', 'bob'], existing: [] });
    const rows = (await bed.database.query('SELECT username, email, role, blocked FROM users ORDER BY id')) as Record<string, unknown>[];
    expect(rows).toEqual([
      { username: 'admin', email: 'admin@docflow.local', role: 'super_admin', blocked: false },
      { username: 'alice', email: 'alice@docflow.local', role: 'user', blocked: false },
      { username: 'bob', email: 'bob@docflow.local', role: 'user', blocked: false },
    ]);
    const app = buildTestApp(bed);
    for (const [identifier, password] of [
      ['admin@docflow.local', 'Admin#Pass123'],
      ['alice@docflow.local', 'Alice#Pass123'],
      ['bob@docflow.local', 'Bob#Pass123'],
    ]) {
      await request(app).post('/api/auth/local').send({ identifier, password }).expect(200);
    }
  });

  it('never overwrites an existing account', async () => {
    const before = (await bed.database.query("UPDATE users SET password_hash = 'changed-by-admin' WHERE username = 'alice' RETURNING id")) as [unknown[], number];
    expect(before[1]).toBe(1);
    expect(await seedDemoUsers(users, recordingLogger())).toEqual({ created: [], existing: ['admin', 'alice', 'bob'] });
    const rows = (await bed.database.query("SELECT password_hash FROM users WHERE username = 'alice'")) as { password_hash: string }[];
    expect(rows[0]!.password_hash).toBe('changed-by-admin');
  });

  it('is wanted with SEED_DEMO_USERS=true, but never with NODE_ENV=production', () => {
    const secrets = {
      JWT_SECRET: 'x'.repeat(32),
      SERVICE_KEY: 'y'.repeat(32),
      INTERNAL_SERVICE_JWT_SECRET: 'z'.repeat(32),
      ROUTER_API_KEY: 'r'.repeat(32),
      CREDENTIALS_MASTER_KEY: 'c'.repeat(64),
      METRICS_TOKEN: 'm'.repeat(32),
    };
    expect(demoUsersWanted(loadConfig(PublicApiConfig, { NODE_ENV: 'development', SEED_DEMO_USERS: 'true', ...secrets }))).toBe(true);
    expect(demoUsersWanted(loadConfig(PublicApiConfig, { NODE_ENV: 'development', ...secrets }))).toBe(false);
    expect(demoUsersWanted(loadConfig(PublicApiConfig, { NODE_ENV: 'production', SEED_DEMO_USERS: 'true', ...secrets }))).toBe(false);
  });
});
