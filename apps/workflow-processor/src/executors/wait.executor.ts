import { isOutboundRequestError, type OutboundClient, type OutboundResponse } from '@docflow/outbound-http';
import { isPlainObject, lookupPath } from '@docflow/workflow';
import { raceAbort, sleep } from '../engine/abort';
import { NodeFailure, type TaskExecutor } from './executor';
import { errorTypeOfOutbound, headersOf, secondsOf, sensitiveHeadersOf, urlOf } from './outbound';

export interface WaitExecutorDeps {
  /** The same SSRF-guarded client as rest_api_task. */
  client: OutboundClient;
  /** Upper bound of one poll request, in seconds (REST_API_DEFAULT_TIMEOUT_SECONDS). */
  requestTimeoutSeconds: number;
  /** WAIT_MIN_POLL_INTERVAL_MS / 1000: no endpoint is polled more often. */
  minPollIntervalSeconds?: number;
  /** WAIT_MAX_TIMEOUT_SECONDS: no wait lasts longer. */
  maxTimeoutSeconds?: number;
  /** WAIT_PARK_AFTER_MS: a gap between polls this long or longer parks the run (when the engine can park). */
  parkAfterMs?: number;
  /** WAIT_HOLD_MAX_MS: one delivery polls in process at most this long before parking, whatever the gap. */
  holdMaxMs?: number;
  now?: () => number;
}

/** What a parked wait keeps between deliveries: the timeout runs from the first poll of the first one. */
interface WaitState {
  started_at: number;
  last_value?: unknown;
  last_response?: unknown;
  last_error?: string;
}

function waitStateOf(raw: unknown): WaitState | undefined {
  if (!isPlainObject(raw) || typeof raw['started_at'] !== 'number' || !Number.isFinite(raw['started_at'])) return undefined;
  return {
    started_at: raw['started_at'],
    last_value: raw['last_value'],
    last_response: raw['last_response'],
    ...(typeof raw['last_error'] === 'string' ? { last_error: raw['last_error'] } : {}),
  };
}

const DEFAULT_POLL_SECONDS = 3;
const DEFAULT_TIMEOUT_SECONDS = 120;
const DEFAULT_SUCCESS = 'completed';
const DEFAULT_FAILURES: readonly unknown[] = ['failed', 'error'];

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** Equal as given, or as text for scalars (`200` matches `"200"`). */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (isScalar(a) && isScalar(b) && String(a) === String(b));
}

function describe(value: unknown): string {
  return value === undefined ? 'missing' : JSON.stringify(value);
}

/**
 * `wait_task`: polls `endpoint` every poll_interval seconds until
 * `watch_field` (dot path into the JSON body) equals success_value (output
 * `status: success`), equals one of failure_values (the node fails with
 * `status: failure`), or `timeout` seconds pass (fails with error_type
 * timeout). Poll requests that fail for a reason that may pass (timeout,
 * network, 5xx, 429) are retried at the next poll; refused destinations and
 * other errors fail the node at once.
 *
 * Between polls the wait sleeps in process only while that is cheap: a gap
 * of WAIT_PARK_AFTER_MS or more, or one that would take this delivery past
 * WAIT_HOLD_MAX_MS, parks the run instead (issue #15 item 3); the job is
 * acked and a later delivery carries on from the parked state, so a wait of
 * hours holds no message and survives processor restarts.
 */
export function createWaitExecutor(deps: WaitExecutorDeps): TaskExecutor {
  const now = deps.now ?? Date.now;
  return async (ctx) => {
    const config = ctx.config;
    const endpoint = urlOf(config['endpoint'], 'endpoint');
    const watchField = config['watch_field'];
    if (typeof watchField !== 'string' || watchField.trim() === '') throw new NodeFailure('configuration_error', 'watch_field is required');
    const method = typeof config['method'] === 'string' && config['method'].trim() !== '' ? config['method'].trim().toUpperCase() : 'GET';
    const headers = headersOf(config['headers']);
    const sensitiveHeaders = sensitiveHeadersOf(headers);
    const minPoll = deps.minPollIntervalSeconds ?? 0;
    const maxTimeout = deps.maxTimeoutSeconds ?? Number.POSITIVE_INFINITY;
    const pollMs = secondsOf(config['poll_interval'], 'poll_interval', Math.max(DEFAULT_POLL_SECONDS, minPoll), { min: minPoll }) * 1000;
    const timeoutMs = secondsOf(config['timeout'], 'timeout', Math.min(DEFAULT_TIMEOUT_SECONDS, maxTimeout), { max: maxTimeout }) * 1000;
    const successValue = config['success_value'] === undefined ? DEFAULT_SUCCESS : config['success_value'];
    const failureValues = Array.isArray(config['failure_values']) ? config['failure_values'] : DEFAULT_FAILURES;

    const parkAfterMs = ctx.canPark ? (deps.parkAfterMs ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY;
    const holdMaxMs = ctx.canPark ? (deps.holdMaxMs ?? Number.POSITIVE_INFINITY) : Number.POSITIVE_INFINITY;

    const entered = now();
    const resumed = waitStateOf(ctx.parkedState);
    const started = resumed?.started_at ?? entered;
    const elapsedSeconds = () => Math.round(now() - started) / 1000;
    let lastValue: unknown = resumed?.last_value;
    let lastResponse: unknown = resumed?.last_response ?? null;
    let lastError: string | undefined = resumed?.last_error;
    for (;;) {
      const remaining = timeoutMs - (now() - started);
      let response: OutboundResponse | undefined;
      try {
        // The poll at the very end of the wait still gets a usable budget.
        const requestTimeout = Math.min(deps.requestTimeoutSeconds * 1000, Math.max(remaining, 250));
        response = await raceAbort(deps.client.request({ url: endpoint, method, headers, sensitiveHeaders, timeoutMs: Math.ceil(requestTimeout) }), ctx.signal);
        lastError = undefined;
      } catch (err) {
        if (!isOutboundRequestError(err)) throw err;
        if (!err.retryable) throw new NodeFailure(errorTypeOfOutbound(err), err.message);
        lastError = err.message;
      }
      if (response) {
        lastResponse = response.body;
        const found = lookupPath(response.body, watchField.trim());
        lastValue = found.found ? found.value : undefined;
        const result = { final_value: lastValue ?? null, response: lastResponse, elapsed_seconds: elapsedSeconds() };
        if (sameValue(lastValue, successValue)) return { output: { status: 'success', ...result } };
        if (failureValues.some((f) => sameValue(lastValue, f))) {
          throw new NodeFailure('http_error', `wait_task: ${watchField} reached the failure value ${describe(lastValue)}`, { status: 'failure', ...result });
        }
      }
      const left = timeoutMs - (now() - started);
      if (left <= 0) {
        const seconds = timeoutMs / 1000;
        const why = lastError ? `last poll failed: ${lastError}` : `${watchField} was ${describe(lastValue)}`;
        throw new NodeFailure('timeout', `wait_task timed out after ${seconds} s (${why})`, {
          status: 'failure',
          final_value: lastValue ?? null,
          response: lastResponse,
          elapsed_seconds: elapsedSeconds(),
        });
      }
      const gap = Math.min(pollMs, left);
      if (gap >= parkAfterMs || now() - entered + gap > holdMaxMs) {
        const state: WaitState = { started_at: started, last_value: lastValue, last_response: lastResponse, ...(lastError !== undefined ? { last_error: lastError } : {}) };
        return { park: { until: new Date(now() + gap), state } };
      }
      await sleep(gap, ctx.signal);
    }
  };
}
