import { ConfigError, loadConfig } from '@docflow/service-kit';
import { TEST_SECRETS } from '@docflow/testing';
import { PublicApiConfig } from './config';

describe('PublicApiConfig', () => {
  it('has the runtime contract defaults', () => {
    const c = loadConfig(PublicApiConfig, { ...TEST_SECRETS });
    expect(c.PUBLIC_API_PORT).toBe(1337);
    expect(c.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/docflow');
    expect(c.PUBLIC_BASE_URL).toBe('http://127.0.0.1:1337');
    expect(c.JWT_EXPIRES_IN_SECONDS).toBe(86400);
    expect(c.SMTP_URL).toBeUndefined();
    expect(c.MAIL_FROM).toBe('Docflow <no-reply@docflow.local>');
    expect(c.OUTBOX_DIR).toBe('./var/outbox');
    expect(c.SEED_DEMO_USERS).toBe(false);
    expect(c.BODY_LIMIT).toBe('1mb');
    expect(c.HOST).toBe('0.0.0.0');
  });

  it('reads its variables', () => {
    const c = loadConfig(PublicApiConfig, { ...TEST_SECRETS, PUBLIC_API_PORT: '8080', SEED_DEMO_USERS: 'true', SMTP_URL: 'smtp://127.0.0.1:2525', JWT_EXPIRES_IN_SECONDS: '3600' });
    expect(c.PUBLIC_API_PORT).toBe(8080);
    expect(c.SEED_DEMO_USERS).toBe(true);
    expect(c.SMTP_URL).toBe('smtp://127.0.0.1:2525');
    expect(c.JWT_EXPIRES_IN_SECONDS).toBe(3600);
  });

  it.each(['production', 'development', 'test'])('names bad variables and every missing secret (NODE_ENV=%s)', (env) => {
    expect(() => loadConfig(PublicApiConfig, { ...TEST_SECRETS, PUBLIC_API_PORT: 'abc', SMTP_URL: 'http://x' })).toThrow(ConfigError);
    try {
      loadConfig(PublicApiConfig, { NODE_ENV: env });
      throw new Error('expected a ConfigError');
    } catch (err) {
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['JWT_SECRET', 'SERVICE_KEY', 'INTERNAL_SERVICE_JWT_SECRET', 'ROUTER_API_KEY', 'CREDENTIALS_MASTER_KEY']) expect(problems).toMatch(new RegExp(`^${name}: is not set`, 'm'));
    }
    // The credential store's key is 64 hex characters (32 bytes), in every environment.
    expect(() => loadConfig(PublicApiConfig, { ...TEST_SECRETS, CREDENTIALS_MASTER_KEY: 'not-hex-but-long-enough-0123456789' })).toThrow(/CREDENTIALS_MASTER_KEY must be 64 hex characters/);
    expect(loadConfig(PublicApiConfig, { ...TEST_SECRETS, CREDENTIALS_MASTER_KEY: 'ab'.repeat(32) }).CREDENTIALS_MASTER_KEY).toBe('ab'.repeat(32));
  });

  it('serves no open metrics on the public port in production: METRICS_TOKEN is required there, optional elsewhere', () => {
    const strong = { JWT_SECRET: 'j'.repeat(32), SERVICE_KEY: 's'.repeat(32), INTERNAL_SERVICE_JWT_SECRET: 'i'.repeat(32), ROUTER_API_KEY: 'r'.repeat(32), CREDENTIALS_MASTER_KEY: 'c'.repeat(64) };
    expect(() => loadConfig(PublicApiConfig, { NODE_ENV: 'production', ...strong })).toThrow(/METRICS_TOKEN: must be set when NODE_ENV=production/);
    expect(loadConfig(PublicApiConfig, { NODE_ENV: 'production', ...strong, METRICS_TOKEN: 'm'.repeat(24) }).METRICS_TOKEN).toBe('m'.repeat(24));
    expect(loadConfig(PublicApiConfig, { ...TEST_SECRETS }).METRICS_TOKEN).toBeUndefined();
    expect(() => loadConfig(PublicApiConfig, { ...TEST_SECRETS, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be at least 16 characters/);
  });
});
