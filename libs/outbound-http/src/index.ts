export { createOutboundClient, DEFAULT_MAX_REDIRECTS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS } from './outbound-client';
export type { OutboundClient, OutboundClientOptions, OutboundRequestOptions, OutboundResponse } from './outbound-client';
export { OutboundRequestError, isOutboundRequestError } from './outbound-error';
export type { OutboundErrorKind } from './outbound-error';
export { describeForbiddenAddress, isForbiddenAddress } from './address-policy';
export { AllowedHosts, assertUrlAllowed } from './url-policy';
export type { CheckedUrl } from './url-policy';
export type { HostResolver, ResolvedAddress } from './guarded-lookup';
