import { errorMessage } from './values';
/** A dependency the service needs in order to be usable. */
export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

export interface HealthReport {
  healthy: boolean;
  failing: { name: string; error: string }[];
}

async function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      p,
      new Promise<void>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

export async function runHealthChecks(checks: HealthCheck[], timeoutMs = 2000): Promise<HealthReport> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withTimeout(c.check(), timeoutMs);
        return undefined;
      } catch (err) {
        return { name: c.name, error: errorMessage(err) };
      }
    }),
  );
  const failing = results.filter((r): r is { name: string; error: string } => r !== undefined);
  return { healthy: failing.length === 0, failing };
}

/**
 * Health check of another Docflow service: its /_health under baseUrl must
 * answer 2xx. A service that is not usable itself answers 503, so the check
 * passes through the whole chain of services behind it (which has no cycle:
 * the README lists who calls whom).
 */
export function httpHealthCheck(name: string, baseUrl: string): HealthCheck {
  const url = `${baseUrl.replace(/\/+$/, '')}/_health`;
  return {
    name,
    async check() {
      const res = await fetch(url, { signal: AbortSignal.timeout(1500) });
      if (res.status !== 204 && res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    },
  };
}
