export const noop = (): void => undefined;

/** Waits for `p` (its outcome ignored) but no longer than `ms`. */
export async function bounded(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.then(noop, noop), new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, ms))))]);
  if (timer) clearTimeout(timer);
}

/** The URL without credentials, for logs. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname || '/'}`;
  } catch {
    return '(unparseable AMQP URL)';
  }
}
