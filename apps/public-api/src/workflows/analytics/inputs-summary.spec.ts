import { InputPreview, isSecretLookingKey, REDACTED, summarizeInputs } from './inputs-summary';

const str = (key: string, text: string): InputPreview => ({ key, type: 'string', text, size: null });

describe('isSecretLookingKey', () => {
  it.each([
    'password',
    'user_password',
    'PASSWORD',
    'pwd',
    'client_secret',
    'accessToken',
    'refresh_token',
    'api_key',
    'apiKey',
    'X-API-Key',
    'private_key',
    'Authorization',
    'auth',
    'credentials',
    'cookie',
    'session_id',
    'signature',
    'otp',
    'pin',
    'card_number',
    'cvv',
    'passphrase',
  ])('%s looks secret', (key) => {
    expect(isSecretLookingKey(key)).toBe(true);
  });

  it.each(['document_url', 'author', 'mime_type', 'priority', 'shipping', 'compass', 'keynote', 'title'])('%s does not', (key) => {
    expect(isSecretLookingKey(key)).toBe(false);
  });
});

describe('summarizeInputs', () => {
  it('keeps short scalars and cuts long strings to 200 characters', () => {
    expect(
      summarizeInputs([
        str('a', 'short'),
        str('long', 'y'.repeat(201)),
        str('exact', 'z'.repeat(200)),
        { key: 'n', type: 'number', text: '42', size: null },
        { key: 'f', type: 'number', text: '-0.25', size: null },
        { key: 'scaled', type: 'number', text: '1.50', size: null },
        { key: 'huge', type: 'number', text: '123456789012345678901', size: null },
        { key: 'b', type: 'boolean', text: 'false', size: null },
        { key: 'z', type: 'null', text: null, size: null },
      ]),
    ).toEqual({ a: 'short', long: `${'y'.repeat(199)}…`, exact: 'z'.repeat(200), n: 42, f: -0.25, scaled: 1.5, huge: '123456789012345678901', b: false, z: null });
  });

  it('sizes objects and arrays without showing their content', () => {
    expect(
      summarizeInputs([
        { key: 'o', type: 'object', text: null, size: 2 },
        { key: 'l', type: 'array', text: null, size: 0 },
      ]),
    ).toEqual({ o: '{2 keys}', l: '[0 items]' });
  });

  it('redacts secret-looking keys whatever their value, and credential-looking values under any key', () => {
    expect(
      summarizeInputs([
        str('api_key', 'sk-1'),
        { key: 'token', type: 'object', text: null, size: 1 },
        str('header', 'Bearer abc'),
        str('basic', 'Basic dXNlcjpwYXNz'),
        str('jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig'),
        str('pem', '-----BEGIN RSA PRIVATE KEY-----\nMII'),
        str('plain', 'Bearer'),
      ]),
    ).toEqual({ api_key: REDACTED, token: REDACTED, header: REDACTED, basic: REDACTED, jwt: REDACTED, pem: REDACTED, plain: 'Bearer' });
  });

  it('keeps at most 20 keys', () => {
    const many = Array.from({ length: 30 }, (_, i) => str(`k${i}`, 'v'));
    expect(Object.keys(summarizeInputs(many))).toHaveLength(20);
  });
});
