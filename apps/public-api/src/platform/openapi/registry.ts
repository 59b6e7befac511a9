/**
 * A small registry every feature writes its paths into; GET /openapi.json
 * serves the document built from it. Paths are relative to `{base_url}`
 * (which ends in /api) and written with `{param}`.
 */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';
export type JsonSchema = Record<string, unknown>;

export interface ParameterDoc {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface ResponseDoc {
  description: string;
  schema?: JsonSchema;
  contentType?: string;
}

export interface OperationDoc {
  summary: string;
  tags: string[];
  description?: string;
  /** `bearer` (the default) or `none` for public endpoints. */
  auth?: 'bearer' | 'none';
  parameters?: ParameterDoc[];
  requestBody?: JsonSchema;
  responses: Record<number, ResponseDoc>;
  /** Error statuses this operation can answer besides 401 (bearer routes) and 500, e.g. [400, 403]. */
  errors?: ErrorStatus[];
}

export const ERROR_RESPONSES = {
  400: { name: 'BadRequest', description: 'Invalid input (details.errors lists each problem)' },
  401: { name: 'Unauthorized', description: 'Missing, invalid, expired or revoked token' },
  403: { name: 'Forbidden', description: 'Not allowed for this caller' },
  404: { name: 'NotFound', description: 'Resource not found' },
  409: { name: 'Conflict', description: 'Conflicts with an existing resource' },
  413: { name: 'PayloadTooLarge', description: 'Request body too large' },
  422: { name: 'UnprocessableEntity', description: 'Valid in format but semantically wrong' },
  429: { name: 'TooManyRequests', description: 'Over a rate limit or throttle; the Retry-After header and details.retry_after say when to try again' },
  500: { name: 'InternalError', description: 'Unexpected failure (details.errorId identifies the logged error)' },
  503: { name: 'ServiceUnavailable', description: 'A dependency is unavailable; retry later' },
} as const;
export type ErrorStatus = keyof typeof ERROR_RESPONSES;

export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['status', 'name', 'message', 'details'],
      properties: {
        status: { type: 'integer' },
        name: { type: 'string', examples: ['BadRequestError', 'UnauthorizedError', 'NotFoundError'] },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true, properties: { errors: { type: 'array', items: { type: 'string' } } } },
      },
    },
  },
};

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1] ?? '');
}

export interface OpenApiDocumentOptions {
  title: string;
  version: string;
  serverUrl: string;
  description?: string;
}

export type OpenApiDocument = Record<string, unknown> & { openapi: string; paths: Record<string, Partial<Record<HttpMethod, unknown>>> };

export class OpenApiRegistry {
  private readonly operations = new Map<string, Partial<Record<HttpMethod, OperationDoc>>>();
  private readonly schemas = new Map<string, JsonSchema>();

  /** Describes one route. `path` is relative to /api, e.g. `/documents/{id}`. */
  add(method: HttpMethod, path: string, doc: OperationDoc): this {
    if (!path.startsWith('/') || /:[A-Za-z]/.test(path)) throw new Error(`OpenAPI path must start with / and use {param}: ${path}`);
    const ops = this.operations.get(path) ?? {};
    if (ops[method]) throw new Error(`OpenAPI operation described twice: ${method.toUpperCase()} ${path}`);
    ops[method] = doc;
    this.operations.set(path, ops);
    return this;
  }

  /** A named schema under components.schemas, referenced as `{ $ref: '#/components/schemas/<name>' }`. */
  addSchema(name: string, schema: JsonSchema): this {
    if (this.schemas.has(name)) throw new Error(`OpenAPI schema described twice: ${name}`);
    this.schemas.set(name, schema);
    return this;
  }

  has(method: HttpMethod, path: string): boolean {
    return this.operations.get(path)?.[method] !== undefined;
  }

  document(options: OpenApiDocumentOptions): OpenApiDocument {
    const paths: Record<string, Partial<Record<HttpMethod, unknown>>> = {};
    for (const path of [...this.operations.keys()].sort()) {
      const ops = this.operations.get(path) ?? {};
      const out: Partial<Record<HttpMethod, unknown>> = {};
      for (const [method, doc] of Object.entries(ops) as [HttpMethod, OperationDoc][]) out[method] = this.operation(method, path, doc);
      paths[path] = out;
    }
    const responses: Record<string, unknown> = {};
    for (const { name, description } of Object.values(ERROR_RESPONSES)) {
      responses[name] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
    return {
      openapi: '3.1.0',
      info: { title: options.title, version: options.version, ...(options.description ? { description: options.description } : {}) },
      servers: [{ url: options.serverUrl }],
      security: [{ bearerAuth: [] }],
      paths,
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /auth/local' },
        },
        schemas: { Error: ERROR_SCHEMA, ...Object.fromEntries(this.schemas) },
        responses,
      },
    };
  }

  private operation(method: HttpMethod, path: string, doc: OperationDoc): Record<string, unknown> {
    const given = doc.parameters ?? [];
    const implicit: ParameterDoc[] = pathParams(path)
      .filter((name) => !given.some((p) => p.in === 'path' && p.name === name))
      .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(doc.responses)) {
      responses[status] = r.schema ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema: r.schema } } } : { description: r.description };
    }
    const bearer = (doc.auth ?? 'bearer') === 'bearer';
    const errors = new Set<ErrorStatus>([...(doc.errors ?? []), ...(bearer ? [401 as const] : []), 500]);
    for (const status of [...errors].sort()) responses[String(status)] ??= { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
    return {
      operationId: `${method}${path.replace(/\{([^}]+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      tags: doc.tags,
      ...(bearer ? {} : { security: [] }),
      ...(given.length || implicit.length ? { parameters: [...implicit, ...given] } : {}),
      ...(doc.requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: doc.requestBody } } } } : {}),
      responses,
    };
  }
}
