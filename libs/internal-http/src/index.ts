export { authHeaders, type ServiceAuth } from './service-auth';
export { bodyText, clip, readErrorBody, retryAfterOf, type ErrorBody } from './error-body';
export { InternalHttpClient, InternalHttpError, type HttpMethod, type InternalHttpClientOptions, type InternalRequest, type InternalResponse, type TransportFailure } from './internal-http-client';
export { InternalServiceError } from './internal-service-error';
export { JsonServiceClient, type ErrorFactory, type JsonCallOptions } from './json-service-client';
