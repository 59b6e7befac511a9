import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Message counts per queue of a vhost, read with rabbitmqctl. */
export async function queueDepths(vhost: string): Promise<Record<string, number>> {
  const { stdout } = await run('rabbitmqctl', ['-q', 'list_queues', '-p', vhost, 'name', 'messages', '--no-table-headers']);
  const out: Record<string, number> = {};
  for (const line of stdout.split('\n')) {
    const [name, count] = line.trim().split(/\s+/);
    if (name && count !== undefined) out[name] = Number(count);
  }
  return out;
}

export async function stopBroker(): Promise<void> {
  await run('rabbitmqctl', ['-q', 'stop_app']);
}

export async function startBroker(): Promise<void> {
  await run('rabbitmqctl', ['-q', 'start_app']);
  await run('rabbitmqctl', ['-q', 'await_startup']);
}
