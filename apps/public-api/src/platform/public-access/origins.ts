/**
 * `allowed_origins` of webhooks and chatbots (spec 2.12, 2.14): empty accepts any origin; otherwise the
 * request's Origin (or, without one, its Referer) must name a host that is
 * listed, or that falls under a listed `*.domain` pattern (the domain itself
 * and any subdomain). Entries may be hostnames or full origins
 * (`https://app.example.com`); ports and schemes are not compared.
 */
export function originAllowed(allowed: readonly string[], origin: string | undefined, referer: string | undefined): boolean {
  if (allowed.length === 0) return true;
  const host = hostOf(origin) ?? hostOf(referer);
  if (host === undefined) return false;
  return allowed.some((entry) => {
    const pattern = patternHost(entry);
    if (pattern === undefined) return false;
    if (pattern.startsWith('*.')) {
      const domain = pattern.slice(2);
      return host === domain || host.endsWith(`.${domain}`);
    }
    return host === pattern;
  });
}

function hostOf(value: string | undefined): string | undefined {
  if (!value || value === 'null') return undefined;
  try {
    return new URL(value).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function patternHost(entry: string): string | undefined {
  const trimmed = entry.trim().toLowerCase();
  if (trimmed === '') return undefined;
  if (trimmed.startsWith('*.')) return trimmed;
  return trimmed.includes('://') ? hostOf(trimmed) : trimmed.replace(/:\d+$/, '');
}

const ORIGINS_MAX = 50;

/** The problems of an `allowed_origins` value in a request body (none: valid; undefined is valid, not given). */
export function allowedOriginsProblems(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > ORIGINS_MAX || value.some((o) => typeof o !== 'string' || o.trim() === '' || o.length > 255))
    return [`allowed_origins: must be an array of at most ${ORIGINS_MAX} hostnames, origins or *.domain patterns`];
  return [];
}

/** A valid `allowed_origins` value (see allowedOriginsProblems), trimmed. */
export function allowedOrigins(value: readonly string[]): string[] {
  return value.map((o) => o.trim());
}
