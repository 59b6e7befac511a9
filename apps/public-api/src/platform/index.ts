// The platform module: what every module of the public API may use (config, the database handle's type,
// feature wiring, request-body helpers, rate limits shared by every process (PostgreSQL), OpenAPI fragments, public access, the router client).
// It imports no other module.
export { PUBLIC_API_ROLES, PublicApiConfig } from './config';
export type { PublicApiRole } from './config';
export type { PublicApiDatabase } from './database';
export { deleteUserRows } from './user-rows.repository';
export type { SqlRunner } from './user-rows.repository';
export { bindFeature } from './feature';
export type { ApiFeature, MountableFeature, PlatformServices } from './feature';
export { idParam, requestFields } from './request-body';
export { booleanProblems, integerProblems, isRecordId, nullableTextProblems, objectProblems, required, slugProblems } from './request-rules';
export type { FieldProblems } from './request-rules';
export { PER_MINUTE, RateLimits, tooManyRequests } from './rate-limits/rate-limits';
export type { Limit, LimitVerdict } from './rate-limits/rate-limits';
export type { WindowCount } from './rate-limits/rate-limit.repository';
export { CreateRateLimitCounters1764000000090 } from './migrations/1764000000090-CreateRateLimitCounters';
export * from './openapi/registry';
export { listRoutes, toOpenApiPath } from './openapi/list-routes';
export type { MountedRoute } from './openapi/list-routes';
export { openApiFeature, PUBLIC_API_VERSION } from './openapi/openapi.feature';
export { apiKeyMatches, newApiKey, sha256Hex } from './public-access/api-keys';
export { allowedOrigins, allowedOriginsProblems, originAllowed } from './public-access/origins';
export { CHAT_STREAM_DESCRIPTION, describePreflight, PREFLIGHT_MAX_AGE_SECONDS, publicCors } from './public-access/cors';
export type { PublicCorsPolicy } from './public-access/cors';
export { answerChunks, streamChat, wantsEventStream } from './public-access/chat-stream';
export { SLUG_MAX, SLUG_PATTERN, slugify, slugTakenOr } from './public-access/slug';
export * from './router-client/router-client';

export { CONSOLE_CSP, consoleStatic } from './console-static';
