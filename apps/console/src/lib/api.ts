/**
 * The console's only door to the public API (always under /api on this
 * origin). The session (JWT and user) lives in sessionStorage: it ends with
 * the tab and is never a cookie, so no other origin can send it.
 */

export interface SessionUser {
  id: number;
  username: string;
  email: string;
  role?: string;
}

export interface Session {
  jwt: string;
  user: SessionUser;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorName: string,
    message: string,
    readonly details: { errors?: string[]; [k: string]: unknown } = {},
  ) {
    super(message);
  }

  get stepUpRequired(): boolean {
    return this.status === 403 && /step-up/i.test(this.message);
  }

  /** The message and each listed problem, for display. */
  describe(): string {
    const errors = Array.isArray(this.details.errors) ? this.details.errors : [];
    return errors.length ? `${this.message}: ${errors.join('; ')}` : this.message;
  }
}

const SESSION_KEY = 'docflow.session';
const listeners = new Set<() => void>();
let current: Session | null = readStored();

function readStored(): Session | null {
  try {
    const raw = sessionStorage.getItem(SESSION_KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function getSession(): Session | null {
  return current;
}

export function setSession(s: Session | null): void {
  current = s;
  if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(SESSION_KEY);
  for (const l of listeners) l();
}

export function onSessionChange(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** Asked when an action needs step-up (spec 5); resolves true once the code is verified. */
let stepUpPrompt: (() => Promise<boolean>) | null = null;
export function setStepUpPrompt(p: (() => Promise<boolean>) | null): void {
  stepUpPrompt = p;
}

export interface RequestOptions {
  body?: unknown;
  /** A sensitive operation: sent with X-Step-Up-Verified, and a step-up is asked for when the API wants one. */
  stepUp?: boolean;
  /** Read the body as a Blob (downloads, previews). */
  blob?: boolean;
  signal?: AbortSignal;
}

async function toError(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: { name?: string; message?: string; details?: ApiError['details'] } };
    if (body.error) return new ApiError(res.status, body.error.name ?? 'Error', body.error.message ?? res.statusText, body.error.details ?? {});
  } catch {
    // not JSON
  }
  return new ApiError(res.status, 'Error', text || res.statusText);
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = {};
  const session = getSession();
  if (session) headers['Authorization'] = `Bearer ${session.jwt}`;
  if (options.stepUp) headers['X-Step-Up-Verified'] = 'true';
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(`/api${path}`, { method, headers, body, signal: options.signal });
  if (!res.ok) {
    const err = await toError(res);
    if (res.status === 401 && session && path !== '/auth/local') setSession(null);
    if (err.stepUpRequired && options.stepUp && stepUpPrompt && (await stepUpPrompt())) {
      return request<T>(method, path, { ...options, stepUp: true });
    }
    throw err;
  }
  if (options.blob) return (await res.blob()) as T;
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

export const api = {
  get: <T>(path: string, o?: RequestOptions) => request<T>('GET', path, o),
  post: <T>(path: string, body?: unknown, o?: RequestOptions) => request<T>('POST', path, { ...o, body: body ?? {} }),
  put: <T>(path: string, body?: unknown, o?: RequestOptions) => request<T>('PUT', path, { ...o, body: body ?? {} }),
  patch: <T>(path: string, body?: unknown, o?: RequestOptions) => request<T>('PATCH', path, { ...o, body: body ?? {} }),
  del: <T>(path: string, o?: RequestOptions) => request<T>('DELETE', path, o),
};

/** Uploads one file with progress (fetch reports none for request bodies). */
export function uploadWithProgress<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api${path}`);
    const session = getSession();
    if (session) xhr.setRequestHeader('Authorization', `Bearer ${session.jwt}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve(JSON.parse(xhr.responseText) as T);
      } else {
        void toError(new Response(xhr.responseText, { status: xhr.status })).then(reject);
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'NetworkError', 'The upload failed: network error'));
    xhr.send(form);
  });
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.describe();
  return err instanceof Error ? err.message : String(err);
}

/** Strapi-style list query string from plain filters (empty values are left out). */
export function listQuery(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
