import { ConfigError, loadConfig } from '@docflow/service-kit';
import { PublicApiConfig } from './config';

describe('PublicApiConfig', () => {
  it('has the runtime contract defaults', () => {
    const c = loadConfig(PublicApiConfig, {});
    expect(c.PUBLIC_API_PORT).toBe(1337);
    expect(c.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/docflow');
    expect(c.PUBLIC_BASE_URL).toBe('http://127.0.0.1:1337');
    expect(c.JWT_EXPIRES_IN_SECONDS).toBe(86400);
    expect(c.SMTP_URL).toBeUndefined();
    expect(c.MAIL_FROM).toBe('Docflow <no-reply@docflow.local>');
    expect(c.OUTBOX_DIR).toBe('./var/outbox');
    expect(c.SEED_DEMO_USERS).toBe(false);
    expect(c.BODY_LIMIT).toBe('1mb');
    expect(c.JWT_SECRET).toMatch(/^dev-only-/);
  });

  it('reads its variables', () => {
    const c = loadConfig(PublicApiConfig, { PUBLIC_API_PORT: '8080', SEED_DEMO_USERS: 'true', SMTP_URL: 'smtp://127.0.0.1:2525', JWT_EXPIRES_IN_SECONDS: '3600' });
    expect(c.PUBLIC_API_PORT).toBe(8080);
    expect(c.SEED_DEMO_USERS).toBe(true);
    expect(c.SMTP_URL).toBe('smtp://127.0.0.1:2525');
    expect(c.JWT_EXPIRES_IN_SECONDS).toBe(3600);
  });

  it('names bad variables and missing secrets in production', () => {
    expect(() => loadConfig(PublicApiConfig, { PUBLIC_API_PORT: 'abc', SMTP_URL: 'http://x' })).toThrow(ConfigError);
    try {
      loadConfig(PublicApiConfig, { NODE_ENV: 'production' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toContain('JWT_SECRET');
      expect(problems).toContain('SERVICE_KEY');
      expect(problems).toContain('INTERNAL_SERVICE_JWT_SECRET');
      expect(problems).toContain('CREDENTIALS_MASTER_KEY');
    }
    // The credential store's key is 64 hex characters (32 bytes), in every environment.
    expect(() => loadConfig(PublicApiConfig, { CREDENTIALS_MASTER_KEY: 'not-hex-but-long-enough-0123456789' })).toThrow(/CREDENTIALS_MASTER_KEY must be 64 hex characters/);
    expect(loadConfig(PublicApiConfig, { CREDENTIALS_MASTER_KEY: 'ab'.repeat(32) }).CREDENTIALS_MASTER_KEY).toBe('ab'.repeat(32));
  });
});
