import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describeForbiddenAddress } from './address-policy';
import { OutboundRequestError, refusedDestination } from './outbound-error';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; injectable for tests. */
export type HostResolver = (hostname: string, family: 0 | 4 | 6) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname, family) => {
  const found = await dns.lookup(hostname, { all: true, family });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

const PERMANENT_DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code: unknown = error.code;
  return typeof code === 'string' ? code : undefined;
}

function dnsError(hostname: string, error: unknown): OutboundRequestError {
  const code = errorCode(error) ?? 'EAI_FAIL';
  return new OutboundRequestError('dns', `DNS lookup failed for ${hostname}: ${code}`, {
    retryable: !PERMANENT_DNS_CODES.has(code),
    cause: error,
  });
}

async function resolveChecked(resolve: HostResolver, hostname: string, family: 0 | 4 | 6, guard: boolean): Promise<readonly ResolvedAddress[]> {
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolve(hostname, family);
  } catch (error) {
    const failure = dnsError(hostname, error);
    // A guarded name that does not exist gets the same answer as one that resolves inward: no DNS oracle.
    throw guard && !failure.retryable ? refusedDestination(hostname) : failure;
  }
  const usable = family === 0 ? addresses : addresses.filter((entry) => entry.family === family);
  if (usable.length === 0) {
    throw guard ? refusedDestination(hostname) : dnsError(hostname, Object.assign(new Error('no address'), { code: 'ENOTFOUND' }));
  }
  // Every address must pass: the socket may try any of them.
  if (guard && usable.some((entry) => describeForbiddenAddress(entry.address) !== null)) throw refusedDestination(hostname);
  return usable;
}

function familyOf(options: LookupOptions): 0 | 4 | 6 {
  const family: unknown = options.family;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * A `lookup` for http(s) agents. The socket connects to exactly the
 * addresses returned here, so checking them in this function leaves no window
 * for DNS rebinding between check and connect. With `guard` false (hosts in
 * REST_API_ALLOWED_HOSTS) addresses are resolved but not checked.
 */
export function createGuardedLookup(resolve: HostResolver, guard: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(resolve, hostname, familyOf(options), guard).then(
      (addresses) => {
        process.nextTick(() => {
          if (options.all === true) {
            const all: LookupAddress[] = addresses.map((entry) => ({ address: entry.address, family: entry.family }));
            callback(null, all);
            return;
          }
          const first = addresses[0];
          if (first === undefined) callback(dnsError(hostname, undefined), '', 0);
          else callback(null, first.address, first.family);
        });
      },
      (error: unknown) => {
        const failure = error instanceof OutboundRequestError ? error : dnsError(hostname, error);
        process.nextTick(() => callback(failure, '', 0));
      },
    );
  };
}
