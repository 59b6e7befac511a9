import { IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { BaseConfig, ConfigError, devSecret, EnvBoolean, EnvInt, EnvList, loadConfig, Secret } from './config';
import { IsBoolean } from 'class-validator';

class SampleConfig extends BaseConfig {
  @EnvInt() @IsInt() @Min(1) @Max(65535)
  PORT = 8000;

  @IsUrl({ require_tld: false, protocols: ['postgres'] })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/docflow';

  @EnvBoolean() @IsBoolean()
  FEATURE_ON = false;

  @EnvList() @IsString({ each: true })
  ALLOWED: string[] = [];

  @IsOptional() @IsString()
  OPTIONAL_URL?: string;

  @Secret()
  JWT_SECRET!: string;
}

describe('loadConfig', () => {
  it('applies defaults and converts types from strings', () => {
    const c = loadConfig(SampleConfig, { PORT: '9001', FEATURE_ON: 'true', ALLOWED: 'a:1, b:2', OPTIONAL_URL: 'http://x' });
    expect(c.PORT).toBe(9001);
    expect(c.FEATURE_ON).toBe(true);
    expect(c.ALLOWED).toEqual(['a:1', 'b:2']);
    expect(c.OPTIONAL_URL).toBe('http://x');
    expect(c.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/docflow');
    expect(c.NODE_ENV).toBe('development');
  });

  it('reads "false" as false, not as a truthy string', () => {
    expect(loadConfig(SampleConfig, { FEATURE_ON: 'false' }).FEATURE_ON).toBe(false);
    expect(loadConfig(SampleConfig, { FEATURE_ON: '0' }).FEATURE_ON).toBe(false);
  });

  it('names every bad variable', () => {
    try {
      loadConfig(SampleConfig, { PORT: 'eighty', FEATURE_ON: 'maybe', LOG_LEVEL: 'loud' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      expect(problems).toMatch(/^PORT:/m);
      expect(problems).toMatch(/^FEATURE_ON:/m);
      expect(problems).toMatch(/^LOG_LEVEL:/m);
      expect((err as ConfigError).problems).toHaveLength(3);
    }
  });

  it('rejects an out-of-range port', () => {
    expect(() => loadConfig(SampleConfig, { PORT: '70000' })).toThrow(/PORT/);
  });

  it('fills a missing secret with a development value outside production', () => {
    expect(loadConfig(SampleConfig, {}).JWT_SECRET).toBe(devSecret('JWT_SECRET'));
    expect(loadConfig(SampleConfig, { JWT_SECRET: 'x'.repeat(40) }).JWT_SECRET).toBe('x'.repeat(40));
  });

  it('stops in production when a secret is missing, weak or a development default', () => {
    expect(() => loadConfig(SampleConfig, { NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig(SampleConfig, { NODE_ENV: 'production', JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig(SampleConfig, { NODE_ENV: 'production', JWT_SECRET: devSecret('JWT_SECRET') })).toThrow(/JWT_SECRET/);
    expect(loadConfig(SampleConfig, { NODE_ENV: 'production', JWT_SECRET: 'k'.repeat(32) }).JWT_SECRET).toBe('k'.repeat(32));
  });

  it('ignores variables the class does not declare', () => {
    const c = loadConfig(SampleConfig, { SOMETHING_ELSE: 'x' }) as unknown as Record<string, unknown>;
    expect(c.SOMETHING_ELSE).toBeUndefined();
  });
});
