import { nodeCredentialPath, type NodeCredentialRequest } from '@docflow/contracts';
import { InternalHttpClient, InternalHttpError, type InternalResponse } from '@docflow/internal-http';
import { isPlainObject, resolveTemplates } from '@docflow/workflow';
import { abortReason } from '../../engine/abort';
import { NodeFailure, type NodeContext } from '../executor';

/** Where a running node's credential is opened: the public API, which alone holds CREDENTIALS_MASTER_KEY. */
export interface NodeCredentialSource {
  /** The fields of the credential this node of this job names; a NodeFailure when it cannot have them. */
  fieldsFor(node: { executionId: number; jobId: string; nodeId: string; signal: AbortSignal }): Promise<Record<string, string>>;
}

export interface PublicApiCredentialsOptions {
  /** PUBLIC_API_INTERNAL_URL, without /api. */
  baseUrl: string;
  /** INTERNAL_SERVICE_JWT_SECRET: each call carries a service JWT of a minute. */
  jwtSecret: string;
  timeoutMs?: number;
}

/**
 * POST /api/workflow-executions/internal/{id}/node-credential with a service
 * JWT, when the node runs (spec 2.7 rule 3): jobs carry only credential ids,
 * so no secret is in a queue message. The public API answers only for the
 * execution's current job while it runs, and only the credential its stored
 * definition names for that node.
 */
export class PublicApiCredentials implements NodeCredentialSource {
  private readonly http: InternalHttpClient;

  constructor(options: PublicApiCredentialsOptions) {
    this.http = new InternalHttpClient({
      service: 'public-api',
      baseUrl: options.baseUrl,
      auth: { kind: 'service-jwt', secret: options.jwtSecret, service: 'workflow-processor', ttlSeconds: 60 },
      timeoutMs: options.timeoutMs ?? 15000,
      maxSockets: 16,
      maxResponseBytes: 1024 * 1024,
    });
  }

  async fieldsFor(node: { executionId: number; jobId: string; nodeId: string; signal: AbortSignal }): Promise<Record<string, string>> {
    const { signal } = node;
    if (signal.aborted) throw abortReason(signal);
    const body: NodeCredentialRequest = { job_id: node.jobId, node_id: node.nodeId };
    let res: InternalResponse;
    try {
      res = await this.http.request({ method: 'POST', path: nodeCredentialPath(node.executionId), json: body, signal });
    } catch (err) {
      if (signal.aborted) throw abortReason(signal);
      const code = err instanceof InternalHttpError && err.code ? ` (${err.code})` : '';
      throw new NodeFailure('network_error', `The public API could not be reached to open the node's credential${code}`);
    }
    // The answer's body is never quoted: on success it holds the secret.
    if (res.status === 404) throw new NodeFailure('configuration_error', 'The node’s credential_id names no credential of the run’s owner, or the run is no longer running');
    if (res.status === 401 || res.status === 403) throw new NodeFailure('configuration_error', `The public API refused the processor's service token (${res.status})`);
    if (res.status < 200 || res.status >= 300) throw new NodeFailure('http_error', `The public API answered ${res.status} when opening the node's credential`);
    const fields = isPlainObject(res.body) && isPlainObject(res.body['data']) ? res.body['data']['fields'] : undefined;
    if (!isPlainObject(fields) || !Object.values(fields).every((v) => typeof v === 'string')) {
      throw new NodeFailure('http_error', 'The public API sent an unusable credential answer');
    }
    return fields as Record<string, string>;
  }

  close(): void {
    this.http.close();
  }
}

/** A node's config with its credential bound, and the headers the credential filled. */
export interface CredentialBoundConfig {
  config: Record<string, unknown>;
  /** Names of headers whose value took a credential field: they never follow a redirect to another origin. */
  credentialHeaders: string[];
}

/**
 * Spec 2.7 rule 3, in the processor: when the node names a `credential_id`,
 * its fields resolve the node's templates first (`{{field}}`, `{{credential.field}}`,
 * `{{credential["a.b"]}}`), then the run's scope resolves the rest, and
 * `credential_id` is gone from the config the executor uses. Without one, the
 * engine's resolved config is used as it is.
 */
export async function bindNodeCredential(ctx: NodeContext, source: NodeCredentialSource | undefined): Promise<CredentialBoundConfig> {
  const raw = ctx.rawConfig['credential_id'];
  if (raw === undefined || raw === null) return { config: ctx.config, credentialHeaders: [] };
  if (!source || ctx.executionId === undefined) {
    throw new NodeFailure('configuration_error', 'credential_id is only resolved for executions started through the public API');
  }
  const fields = await source.fieldsFor({ executionId: ctx.executionId, jobId: ctx.jobId, nodeId: ctx.nodeId, signal: ctx.signal });
  const { credential_id: _id, ...written } = ctx.rawConfig;
  const withCredential = resolveTemplates(written, { ...fields, credential: fields }) as Record<string, unknown>;
  const writtenHeaders = isPlainObject(written['headers']) ? written['headers'] : {};
  const boundHeaders = isPlainObject(withCredential['headers']) ? withCredential['headers'] : {};
  const credentialHeaders = Object.keys(writtenHeaders).filter((name) => writtenHeaders[name] !== boundHeaders[name]);
  return { config: resolveTemplates(withCredential, ctx.scope) as Record<string, unknown>, credentialHeaders };
}
