import type http from 'node:http';
import { errorMessage } from '@docflow/service-kit';
import { HttpTarget } from '@docflow/testing';

export interface ApiHit {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  params: string[];
}

export interface ApiReply {
  status?: number;
  body?: unknown;
}

/**
 * A loopback JSON API for tests on libs/testing's HttpTarget: routes by
 * method and path pattern (capture groups become `params`), records every
 * request; an unknown route is 404, a failing one 500, in the internal error shape.
 */
export class LoopbackApi {
  readonly hits: ApiHit[] = [];

  private constructor(private readonly target: HttpTarget) {}

  static async start(): Promise<LoopbackApi> {
    const target = await HttpTarget.start();
    const api = new LoopbackApi(target);
    target
      .otherwise((hit) => (api.record(hit), { status: 404, body: { error: 'not_found', message: `no route ${hit.method} ${hit.path}` } }))
      .onFailure((err) => ({ status: 500, body: { error: 'internal_error', message: errorMessage(err) } }));
    return api;
  }

  get url(): string {
    return this.target.url('');
  }

  /** Adds a route; a later route for the same method and pattern source replaces the earlier one. */
  on(method: string, pattern: RegExp, handler: (hit: ApiHit) => ApiReply | Promise<ApiReply>): this {
    this.target.onPattern(method, pattern, (hit) => handler(this.record(hit)));
    return this;
  }

  hitsOf(pattern: RegExp): ApiHit[] {
    return this.hits.filter((h) => pattern.test(h.path));
  }

  stop(): Promise<void> {
    return this.target.stop();
  }

  private record(hit: { method: string; path: string; query: string; headers: http.IncomingHttpHeaders; json: unknown; params: string[] }): ApiHit {
    const apiHit: ApiHit = { method: hit.method, path: hit.path, query: new URLSearchParams(hit.query), headers: hit.headers, body: hit.json, params: hit.params };
    this.hits.push(apiHit);
    return apiHit;
  }
}
