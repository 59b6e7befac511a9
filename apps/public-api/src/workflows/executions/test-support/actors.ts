import { signAccessToken } from '../../../identity';
import type { PublicApiDatabase } from '../../../platform';
import type { UserRole } from '../../../identity';
import { UsersRepository } from '../../../identity';
import { TEST_JWT_SECRET } from '../../../test-support/test-app';

export interface Actor {
  id: number;
  username: string;
  role: UserRole;
  /** `Authorization` header value. */
  auth: string;
  token: string;
}

export interface Actors {
  alice: Actor;
  bob: Actor;
  admin: Actor;
}

/**
 * alice and bob (users) and admin (super administrator), inserted directly
 * (no password hashing: tests sign their access tokens).
 */
export async function createActors(database: PublicApiDatabase): Promise<Actors> {
  return { alice: await createActor(database, 'alice'), bob: await createActor(database, 'bob'), admin: await createActor(database, 'admin', 'super_admin') };
}

/** One more account with a signed access token. */
export async function createActor(database: PublicApiDatabase, username: string, role: UserRole = 'user'): Promise<Actor> {
  const inserted = await new UsersRepository(database).insert({ username, email: `${username}@docflow.test`, passwordHash: 'not-a-hash', role });
  if (!inserted.ok) throw new Error(`could not create ${username}`);
  const { token } = signAccessToken({ id: inserted.user.id, role }, { secret: TEST_JWT_SECRET, expiresInSeconds: 3600 });
  return { id: inserted.user.id, username, role, auth: `Bearer ${token}`, token };
}

/** A definition with an input schema that requires `document_url`, one REST node between start and end. */
export function sampleDefinition(): Record<string, unknown> {
  return {
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: { label: 'Start', task_type: 'custom_task', config: {} } },
      {
        id: 'fetch',
        type: 'rest_api_task',
        position: { x: 200, y: 0 },
        data: { label: 'Fetch status', config: { url: 'https://example.com/status/{{document_url}}', method: 'GET' } },
      },
      { id: 'end', type: 'end', position: { x: 400, y: 0 }, data: { label: 'End', task_type: 'custom_task', config: {} } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'fetch' },
      { id: 'e2', source: 'fetch', target: 'end' },
    ],
    input_schema: {
      type: 'object',
      properties: { document_url: { type: 'string', minLength: 1 }, mime_type: { type: 'string' }, priority: { type: 'integer' } },
      required: ['document_url'],
    },
  };
}
