import { IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { BaseConfig, ConfigError, EnvBoolean, EnvInt, EnvList, loadConfig, Secret, secretsOf } from './config';
import { IsBoolean } from 'class-validator';

class SampleConfig extends BaseConfig {
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  PORT = 8000;

  @IsUrl({ require_tld: false, protocols: ['postgres'] })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/docflow';

  @EnvBoolean()
  @IsBoolean()
  FEATURE_ON = false;

  @EnvList()
  @IsString({ each: true })
  ALLOWED: string[] = [];

  @IsOptional()
  @IsString()
  OPTIONAL_URL?: string;

  @Secret()
  JWT_SECRET!: string;
}

const SECRET = { JWT_SECRET: 'k'.repeat(32) };

describe('loadConfig', () => {
  it('applies defaults and converts types from strings', () => {
    const c = loadConfig(SampleConfig, { ...SECRET, PORT: '9001', FEATURE_ON: 'true', ALLOWED: 'a:1, b:2', OPTIONAL_URL: 'http://x' });
    expect(c.PORT).toBe(9001);
    expect(c.FEATURE_ON).toBe(true);
    expect(c.ALLOWED).toEqual(['a:1', 'b:2']);
    expect(c.OPTIONAL_URL).toBe('http://x');
    expect(c.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/docflow');
    expect(c.NODE_ENV).toBe('development');
  });

  it('reads "false" as false, not as a truthy string', () => {
    expect(loadConfig(SampleConfig, { ...SECRET, FEATURE_ON: 'false' }).FEATURE_ON).toBe(false);
    expect(loadConfig(SampleConfig, { ...SECRET, FEATURE_ON: '0' }).FEATURE_ON).toBe(false);
  });

  it('names every bad variable', () => {
    try {
      loadConfig(SampleConfig, { ...SECRET, PORT: 'eighty', FEATURE_ON: 'maybe', LOG_LEVEL: 'loud' });
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
    expect(() => loadConfig(SampleConfig, { ...SECRET, PORT: '70000' })).toThrow(/PORT/);
  });

  it.each(['development', 'test', 'production'])('refuses a missing secret whatever NODE_ENV says (%s): no fixed default stands in', (env) => {
    expect(() => loadConfig(SampleConfig, { NODE_ENV: env })).toThrow(/^ {2}- JWT_SECRET: is not set/m);
    expect(() => loadConfig(SampleConfig, { NODE_ENV: env, JWT_SECRET: '' })).toThrow(/JWT_SECRET: is not set/);
    expect(() => loadConfig(SampleConfig, { NODE_ENV: env, JWT_SECRET: 'dev-only-jwt_secret-change-me' })).toThrow(/JWT_SECRET: holds a fixed development default/);
    expect(loadConfig(SampleConfig, { NODE_ENV: env, JWT_SECRET: 'k'.repeat(32) }).JWT_SECRET).toBe('k'.repeat(32));
  });

  it('asks for a strong secret in production only', () => {
    expect(() => loadConfig(SampleConfig, { NODE_ENV: 'production', JWT_SECRET: 'short' })).toThrow(/JWT_SECRET: must be a strong secret/);
    expect(loadConfig(SampleConfig, { NODE_ENV: 'test', JWT_SECRET: 'short' }).JWT_SECRET).toBe('short');
  });

  it('lists the secrets a class declares', () => {
    expect(secretsOf(SampleConfig)).toEqual(['JWT_SECRET']);
  });

  it('binds to loopback unless BIND_HOST opens it', () => {
    expect(loadConfig(SampleConfig, SECRET).BIND_HOST).toBe('127.0.0.1');
    expect(loadConfig(SampleConfig, { ...SECRET, BIND_HOST: '0.0.0.0' }).BIND_HOST).toBe('0.0.0.0');
  });

  it('ignores variables the class does not declare', () => {
    const c = loadConfig(SampleConfig, { ...SECRET, SOMETHING_ELSE: 'x' }) as unknown as Record<string, unknown>;
    expect(c.SOMETHING_ELSE).toBeUndefined();
  });
});
