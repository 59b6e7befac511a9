import { signServiceToken } from '@docflow/internal-auth';
import { CORRELATION_HEADER, currentCorrelationId, errorMessage, isPlainObject, type Logger } from '@docflow/service-kit';
import type { TenantDetectors, TenantPattern, TenantRecognizer, TenantWordList } from '../tenant/tenant-detectors';
import type { AuditSink, ShieldAuditEvent, TenantDetectorSource } from './ports';

export interface DmsClientOptions {
  /** The public API (spec 4.17 rule 9: DMS_URL), e.g. http://127.0.0.1:1337. */
  baseUrl: string;
  /** INTERNAL_SERVICE_JWT_SECRET: requests carry a short-lived HS256 service token. */
  jwtSecret: string;
  /** Name in the token (`svc`). */
  service: string;
  timeoutMs?: number;
}

export const DMS_DETECTORS_PATH = '/api/internal/data-shield/detectors';
export const DMS_AUDIT_PATH = '/api/internal/data-shield/audit-events';

const arrayOf = <T>(v: unknown): T[] => (Array.isArray(v) ? (v.filter(isPlainObject) as unknown as T[]) : []);

async function dmsFetch(options: DmsClientOptions, path: string, init: { method: string; body?: string }): Promise<Response> {
  const correlation = currentCorrelationId();
  return fetch(options.baseUrl.replace(/\/+$/, '') + path, {
    method: init.method,
    body: init.body,
    headers: {
      authorization: `Bearer ${signServiceToken(options.jwtSecret, options.service, 120)}`,
      'content-type': 'application/json',
      ...(correlation ? { [CORRELATION_HEADER]: correlation } : {}),
    },
    signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
  });
}

/** GET {DMS_URL}/api/internal/data-shield/detectors?tenant=…: a tenant's patterns, word lists and recognizers, packs included. */
export class DmsTenantDetectorSource implements TenantDetectorSource {
  constructor(private readonly options: DmsClientOptions) {}

  async load(tenant: string): Promise<TenantDetectors> {
    const res = await dmsFetch(this.options, `${DMS_DETECTORS_PATH}?tenant=${encodeURIComponent(tenant)}`, { method: 'GET' });
    if (!res.ok) throw new Error(`the public API answered HTTP ${res.status} for tenant detectors`);
    const body: unknown = await res.json();
    if (!isPlainObject(body)) throw new Error('the public API sent tenant detectors that are not an object');
    return {
      tenant,
      patterns: arrayOf<TenantPattern>(body.patterns),
      word_lists: arrayOf<TenantWordList>(body.word_lists),
      recognizers: arrayOf<TenantRecognizer>(body.recognizers),
    };
  }
}

export interface DmsAuditSinkOptions extends DmsClientOptions {
  logger: Logger;
  /** Events wait this long to be sent together. Default 200 ms. */
  flushDelayMs?: number;
  /** Events kept while the public API does not take them; older ones are dropped. Default 5,000. */
  maxPending?: number;
}

/**
 * Sends audit events to the public API in batches, a moment after they
 * happen: emit() never waits and never throws, a failed send is logged and
 * retried with the next batch, and the call that was audited has long
 * succeeded (spec 4.17 rule 8: the row may be missing).
 */
export class DmsAuditSink implements AuditSink {
  private pending: ShieldAuditEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly options: DmsAuditSinkOptions) {}

  emit(event: ShieldAuditEvent): void {
    this.pending.push(event);
    const max = this.options.maxPending ?? 5000;
    if (this.pending.length > max) {
      const dropped = this.pending.splice(0, this.pending.length - max);
      this.options.logger.warn('data shield audit events dropped: the backlog is full', { dropped: dropped.length });
    }
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.options.flushDelayMs ?? 200);
      this.timer.unref();
    }
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.sending = this.sending.then(() => this.send());
    return this.sending;
  }

  close(): Promise<void> {
    return this.flush();
  }

  private async send(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, 200);
      try {
        const res = await dmsFetch(this.options, DMS_AUDIT_PATH, { method: 'POST', body: JSON.stringify({ events: batch }) });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        await res.arrayBuffer();
        this.pending.splice(0, batch.length);
      } catch (err) {
        this.options.logger.warn('sending data shield audit events failed; they are retried with the next batch', { events: batch.length, error: errorMessage(err) });
        return;
      }
    }
  }
}
