import type { OutboundClient } from '@docflow/outbound-http';
import { abortReason, raceAbort } from '../../engine/abort';
import type { TaskExecutor } from '../executor';
import { headersOf, outboundFailure, secondsOf, sensitiveHeadersOf, urlOf } from '../outbound';
import { bindNodeCredential, type NodeCredentialSource } from './node-credentials';
import { buildRestOutput } from './rest-output';

export interface RestApiExecutorDeps {
  /** The SSRF-guarded client (REST_API_ALLOWED_HOSTS). */
  client: OutboundClient;
  /** REST_API_DEFAULT_TIMEOUT_SECONDS, used when the node sets no timeout. */
  defaultTimeoutSeconds: number;
  /** REST_API_MAX_TIMEOUT_SECONDS: a node's timeout may not exceed it, and it caps the default. */
  maxTimeoutSeconds?: number;
  /** Opens a node's `credential_id` as it runs (the public API); without it such a node fails as configuration_error. */
  credentials?: NodeCredentialSource;
}

/**
 * `rest_api_task` (spec 2.7 rules 1-6). The config arrives with its templates
 * resolved (url, headers, body). Refused destinations fail as
 * configuration_error before any packet is sent; non-2xx as
 * `HTTP <status>: <body>` (http_error); timeouts and network or DNS failures
 * as timeout / network_error.
 */
export function createRestApiExecutor(deps: RestApiExecutorDeps): TaskExecutor {
  return async (ctx) => {
    // Jobs carry only the credential id; its fields are opened now, for this node alone (spec 2.7 rule 3).
    const { config, credentialHeaders } = await bindNodeCredential(ctx, deps.credentials);
    const url = urlOf(config['url'], 'url');
    const method = typeof config['method'] === 'string' && config['method'].trim() !== '' ? config['method'].trim().toUpperCase() : 'GET';
    const max = deps.maxTimeoutSeconds ?? Number.POSITIVE_INFINITY;
    const timeoutSeconds = secondsOf(config['timeout'], 'timeout', Math.min(deps.defaultTimeoutSeconds, max), { max });
    const headers = headersOf(config['headers']);
    if (ctx.signal.aborted) throw abortReason(ctx.signal);
    const request = deps.client.request({
      url,
      method,
      headers,
      sensitiveHeaders: [...sensitiveHeadersOf(headers), ...credentialHeaders],
      body: config['body'],
      timeoutMs: Math.ceil(timeoutSeconds * 1000),
    });
    let response;
    try {
      response = await raceAbort(request, ctx.signal);
    } catch (err) {
      throw outboundFailure(err);
    }
    return { output: buildRestOutput(response.status, response.body, config['output_mapping']) };
  };
}
