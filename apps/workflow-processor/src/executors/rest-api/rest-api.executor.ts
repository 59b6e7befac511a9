import type { OutboundClient } from '@docflow/outbound-http';
import { abortReason, raceAbort } from '../../engine/abort';
import { NodeFailure, type TaskExecutor } from '../executor';
import { headersOf, outboundFailure, secondsOf, sensitiveHeadersOf, urlOf } from '../outbound';
import { buildRestOutput } from './rest-output';

export interface RestApiExecutorDeps {
  /** The SSRF-guarded client (REST_API_ALLOWED_HOSTS). */
  client: OutboundClient;
  /** REST_API_DEFAULT_TIMEOUT_SECONDS, used when the node sets no timeout. */
  defaultTimeoutSeconds: number;
  /** REST_API_MAX_TIMEOUT_SECONDS: a node's timeout may not exceed it, and it caps the default. */
  maxTimeoutSeconds?: number;
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
    const config = ctx.config;
    // The public API binds a node's credential into its config and removes credential_id before the job is sent
    // (spec 2.7 rule 3); one still here came from a job submitted to the router directly, without the store.
    if (config['credential_id'] !== undefined && config['credential_id'] !== null) {
      throw new NodeFailure('configuration_error', 'credential_id is only resolved for executions started through the public API');
    }
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
      sensitiveHeaders: sensitiveHeadersOf(headers),
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
