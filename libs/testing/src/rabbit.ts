import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BASE_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

export interface TestVhost {
  name: string;
  /** AMQP URL pointing at the vhost. */
  url: string;
  drop(): Promise<void>;
}

/**
 * A RabbitMQ virtual host of its own for one test file or run: queue names
 * stay exactly as in production (workflow_queue, ...) and runs never collide.
 * Uses rabbitmqctl, which is on every machine of this kind.
 */
export async function createTestVhost(prefix = 'docflow_test'): Promise<TestVhost> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await run('rabbitmqctl', ['-q', 'add_vhost', name]);
  await run('rabbitmqctl', ['-q', 'set_permissions', '-p', name, 'guest', '.*', '.*', '.*']);
  return {
    name,
    url: `${BASE_URL.replace(/\/$/, '')}/${encodeURIComponent(name)}`,
    async drop() {
      await run('rabbitmqctl', ['-q', 'delete_vhost', name]).catch(() => undefined);
    },
  };
}
