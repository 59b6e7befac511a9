/** One mounted route, e.g. `{ method: 'get', path: '/api/documents/{id}' }`. */
export interface MountedRoute {
  method: string;
  path: string;
}

interface RouteLike {
  path?: unknown;
  methods?: Record<string, boolean>;
}

interface LayerLike {
  route?: RouteLike;
  handle?: { stack?: unknown };
  /** The path a layer was mounted with (router 2.x, Express 5). */
  rawPath?: unknown;
}

interface HasRouter {
  router?: { stack?: unknown };
}

/** Express `:param` and `*name` segments written the OpenAPI way (`{param}`). */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

function join(prefix: string, path: string): string {
  const joined = `${prefix.replace(/\/$/, '')}/${path.replace(/^\//, '')}`;
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

function pathsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(pathsOf);
  return []; // RegExp paths cannot be described; none of ours use them.
}

function walk(stack: unknown, prefix: string, out: MountedRoute[]): void {
  if (!Array.isArray(stack)) return;
  for (const layer of stack as LayerLike[]) {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods ?? {}).filter((m) => m !== '_all');
      for (const p of pathsOf(layer.route.path)) {
        for (const method of methods) out.push({ method, path: toOpenApiPath(join(prefix, p)) });
      }
    } else if (layer.handle && Array.isArray(layer.handle.stack)) {
      const mounts = pathsOf(layer.rawPath);
      for (const mount of mounts.length ? mounts : ['/']) walk(layer.handle.stack, join(prefix, mount), out);
    }
  }
}

/** Every route mounted on an Express 5 app, nested routers included, in mounting order. */
export function listRoutes(app: unknown): MountedRoute[] {
  const out: MountedRoute[] = [];
  walk((app as HasRouter).router?.stack, '', out);
  return out;
}
