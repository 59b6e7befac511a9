import bcrypt from 'bcryptjs';
import { threadId } from 'node:worker_threads';
import { ServiceUnavailableError } from '@docflow/service-kit';
import { PasswordPool } from './password-pool';

describe('PasswordPool', () => {
  let pool: PasswordPool;
  afterEach(() => pool.close());

  it('hashes and compares with bcryptjs on worker threads', async () => {
    pool = new PasswordPool({ threads: 2, maxQueue: 10 });
    const hash = String(await pool.run({ op: 'hash', password: 'Alice#Pass123', cost: 4 }));
    expect(bcrypt.compareSync('Alice#Pass123', hash)).toBe(true);
    expect(await pool.run({ op: 'compare', password: 'Alice#Pass123', hash })).toBe(true);
    expect(await pool.run({ op: 'compare', password: 'wrong', hash })).toBe(false);
    expect(threadId).toBe(0);
  });

  it('refuses a job with 503 once maxQueue jobs wait for a thread, and runs the others', async () => {
    pool = new PasswordPool({ threads: 1, maxQueue: 1 });
    const running = pool.run({ op: 'hash', password: 'one', cost: 4 });
    const queued = pool.run({ op: 'hash', password: 'two', cost: 4 });
    expect(pool.waiting).toBe(1);
    await expect(pool.run({ op: 'hash', password: 'three', cost: 4 })).rejects.toBeInstanceOf(ServiceUnavailableError);
    const [a, b] = await Promise.all([running, queued]);
    expect(bcrypt.compareSync('one', String(a))).toBe(true);
    expect(bcrypt.compareSync('two', String(b))).toBe(true);
    expect(pool.waiting).toBe(0);
  });

  it('fails the job of an invalid hash without losing the thread', async () => {
    pool = new PasswordPool({ threads: 1, maxQueue: 5 });
    await expect(pool.run({ op: 'hash', password: 42 as unknown as string, cost: 4 })).rejects.toThrow(/Illegal arguments/);
    expect(await pool.run({ op: 'compare', password: 'x', hash: bcrypt.hashSync('x', 4) })).toBe(true);
  });
});
