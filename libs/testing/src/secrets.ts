/**
 * Secrets for services and configs built by tests: no service starts without
 * its secrets (issue #13), and tests must not depend on a default.
 */
export const TEST_SECRETS = {
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef',
  INTERNAL_SERVICE_JWT_SECRET: 'test-internal-jwt-secret-0123456789',
  SERVICE_KEY: 'test-service-key-0123456789abcdef',
  ROUTER_API_KEY: 'test-router-api-key-0123456789abcdef',
  CREDENTIALS_MASTER_KEY: '0123456789abcdef'.repeat(4),
} as const;
