import type { OpenApiRegistry } from '../../platform';

const message = { type: 'object', required: ['message'], properties: { message: { type: 'string' } } };

export function describeAuthRoutes(openapi: OpenApiRegistry): void {
  openapi
    .addSchema('LoginRequest', {
      type: 'object',
      required: ['identifier', 'password'],
      properties: { identifier: { type: 'string', description: 'Email or username (case-insensitive)' }, password: { type: 'string', format: 'password' } },
    })
    .addSchema('LoginResponse', {
      type: 'object',
      required: ['jwt', 'user'],
      properties: {
        jwt: { type: 'string', description: 'HS256 access token for Authorization: Bearer' },
        user: { type: 'object', required: ['id', 'username', 'email'], properties: { id: { type: 'integer' }, username: { type: 'string' }, email: { type: 'string', format: 'email' } } },
      },
    })
    .addSchema('StepUpVerifyRequest', { type: 'object', required: ['code'], properties: { code: { type: 'string', pattern: '^[0-9]{6}$' } } })
    .addSchema('StepUpVerifyResponse', {
      type: 'object',
      required: ['message', 'expiresIn'],
      properties: { message: { type: 'string' }, expiresIn: { type: 'integer', description: 'Seconds the step-up verification stays valid (300)' } },
    })
    .addSchema('Message', message);

  openapi.add('post', '/auth/local', {
    summary: 'Log in with email or username and password',
    tags: ['auth'],
    auth: 'none',
    requestBody: { $ref: '#/components/schemas/LoginRequest' },
    responses: { 200: { description: 'Logged in', schema: { $ref: '#/components/schemas/LoginResponse' } } },
    description:
      'Failed logins are limited per account and per client address (LOGIN_MAX_FAILURES_PER_ACCOUNT, LOGIN_MAX_FAILURES_PER_ADDRESS per LOGIN_THROTTLE_WINDOW_SECONDS); over either, 429 with Retry-After whatever the password.',
    errors: [400, 413, 429, 503],
  });
  openapi.add('post', '/auth/logout', {
    summary: 'Log out: the presented token is refused from now on',
    tags: ['auth'],
    responses: { 200: { description: 'Logged out', schema: { $ref: '#/components/schemas/Message' } } },
  });
  openapi.add('post', '/auth/logout-all', {
    summary: 'Log out everywhere: every token of the caller issued until now is refused',
    tags: ['auth'],
    responses: { 200: { description: 'Logged out everywhere', schema: { $ref: '#/components/schemas/Message' } } },
  });
  openapi.add('post', '/auth/step-up', {
    summary: 'Mail a 6-digit step-up code to the caller (valid 10 minutes, replaces any previous code)',
    tags: ['auth'],
    responses: { 200: { description: 'Code sent', schema: { $ref: '#/components/schemas/Message' } } },
    description: 'At most one code per 30 seconds and five an hour per user; more is 429 with Retry-After.',
    errors: [429, 503],
  });
  openapi.add('post', '/auth/step-up/verify', {
    summary: 'Verify the step-up code; grants step-up to the presented token for 300 seconds',
    description:
      'Then send `X-Step-Up-Verified: true` on sensitive operations. A user may enter 5 wrong codes an hour, across codes (a new code does not start the count again); then 429 with Retry-After.',
    tags: ['auth'],
    requestBody: { $ref: '#/components/schemas/StepUpVerifyRequest' },
    responses: { 200: { description: 'Verified', schema: { $ref: '#/components/schemas/StepUpVerifyResponse' } } },
    errors: [400, 429],
  });
}
