import { InternalHttpClient } from '@docflow/internal-http';
import { errorMessage, isPlainObject, type Logger } from '@docflow/service-kit';
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

/** The public API, called with a short-lived service JWT (120 s) per request. */
function dmsHttp(options: DmsClientOptions): InternalHttpClient {
  return new InternalHttpClient({
    service: 'public-api',
    baseUrl: options.baseUrl,
    auth: { kind: 'service-jwt', secret: options.jwtSecret, service: options.service, ttlSeconds: 120 },
    timeoutMs: options.timeoutMs ?? 3000,
  });
}

/** GET {DMS_URL}/api/internal/data-shield/detectors?tenant=…: a tenant's patterns, word lists and recognizers, packs included. */
export class DmsTenantDetectorSource implements TenantDetectorSource {
  private readonly http: InternalHttpClient;

  constructor(options: DmsClientOptions) {
    this.http = dmsHttp(options);
  }

  async load(tenant: string): Promise<TenantDetectors> {
    const res = await this.http.request({ method: 'GET', path: DMS_DETECTORS_PATH, query: { tenant } });
    if (res.status < 200 || res.status >= 300) throw new Error(`the public API answered HTTP ${res.status} for tenant detectors`);
    const body = res.body;
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
  private readonly http: InternalHttpClient;

  constructor(private readonly options: DmsAuditSinkOptions) {
    this.http = dmsHttp(options);
  }

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

  async close(): Promise<void> {
    await this.flush();
    this.http.close();
  }

  private async send(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, 200);
      try {
        const res = await this.http.request({ method: 'POST', path: DMS_AUDIT_PATH, json: { events: batch } });
        if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status}`);
        this.pending.splice(0, batch.length);
      } catch (err) {
        this.options.logger.warn('sending data shield audit events failed; they are retried with the next batch', { events: batch.length, error: errorMessage(err) });
        return;
      }
    }
  }
}
