// Password hashing and the event loop (issue 13, item 4): how long the
// event loop of the process is held while logins are being checked, with
// bcryptjs on the main thread (before) and on the PasswordPool's worker
// threads (after). Runs BENCH_LOGINS bcrypt compares at cost 10, BENCH_CONCURRENCY
// at a time, and samples the event-loop delay meanwhile (perf_hooks), which
// is what every other request of the public API would wait on top of its own work.
import bcrypt from 'bcryptjs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { PasswordPool } from '../apps/public-api/src/identity/users/password-pool';
import { BCRYPT_COST, DEFAULT_PASSWORD_POOL } from '../apps/public-api/src/identity/users/password';
import { report, runConcurrent } from './support';

const LOGINS = Number(process.env.BENCH_LOGINS ?? 64);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

async function measure(name: string, compare: (password: string, hash: string) => Promise<boolean>, hash: string): Promise<Record<string, string | number>> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const t0 = performance.now();
  await runConcurrent(LOGINS, CONCURRENCY, async (i) => {
    if ((await compare(i % 2 === 0 ? 'Alice#Pass123' : 'wrong', hash)) !== (i % 2 === 0)) throw new Error('wrong answer');
  });
  const seconds = (performance.now() - t0) / 1000;
  delay.disable();
  const ms = (ns: number) => +(ns / 1e6).toFixed(1);
  return {
    scenario: name,
    logins: LOGINS,
    'logins/s': +(LOGINS / seconds).toFixed(1),
    'event-loop delay p50 ms': ms(delay.percentile(50)),
    'event-loop delay p99 ms': ms(delay.percentile(99)),
    'event-loop delay max ms': ms(delay.max),
  };
}

async function main(): Promise<void> {
  const hash = bcrypt.hashSync('Alice#Pass123', BCRYPT_COST);
  const pool = new PasswordPool(DEFAULT_PASSWORD_POOL);
  try {
    const rows = [
      await measure('bcryptjs on the event loop (before)', (p, h) => bcrypt.compare(p, h), hash),
      await measure(`PasswordPool, ${DEFAULT_PASSWORD_POOL.threads} threads (after)`, async (p, h) => (await pool.run({ op: 'compare', password: p, hash: h })) === true, hash),
    ];
    report('password-hashing', rows, { cost: BCRYPT_COST, concurrency: CONCURRENCY });
  } finally {
    await pool.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
