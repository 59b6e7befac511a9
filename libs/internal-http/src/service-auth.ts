import { signServiceToken } from '@docflow/internal-auth';

/**
 * How a service proves itself to another (spec 5):
 * - `service-key`: the shared key as `X-Service-Key` (INTERNAL_SERVICE_KEY);
 * - `service-jwt`: a short-lived HS256 token signed with INTERNAL_SERVICE_JWT_SECRET, as a bearer token;
 * - `api-key`: the router's `X-API-Key` (ROUTER_API_KEY).
 * None of them is ever logged or put into an error.
 */
export type ServiceAuth = { kind: 'service-key'; key: string } | { kind: 'service-jwt'; secret: string; service: string; ttlSeconds?: number } | { kind: 'api-key'; key: string };

export function authHeaders(auth: ServiceAuth): Record<string, string> {
  switch (auth.kind) {
    case 'service-key':
      return { 'x-service-key': auth.key };
    case 'service-jwt':
      return { authorization: `Bearer ${signServiceToken(auth.secret, auth.service, auth.ttlSeconds ?? 120)}` };
    case 'api-key':
      return { 'x-api-key': auth.key };
    default: {
      const never: never = auth;
      throw new Error(`unknown service auth ${String(never)}`);
    }
  }
}
