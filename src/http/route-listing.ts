import { DECLARATION_KEY, type RouteDeclaration } from './declared-route.ts';

// One listing of everything a request can reach, in the order it is tried:
// the dispatchers that answer before the router (declared in src/app.ts),
// then every route the router holds. Tests check it against what is mounted;
// the OpenAPI document is to be generated from it.

export interface ListedRoute {
  method: string;
  /** Router syntax (`:param`, `*`); `{slug}.{EASEL_CANVAS_HOST}` stands for a canvas's own host. */
  path: string;
  /** Where it is answered: before the router (a dispatcher) or by it. */
  via: 'dispatcher' | 'router';
  /** What answers, for dispatchers. */
  note?: string;
  /** What the route declares of itself (src/http/declared-route.ts), for those that do. */
  declaration?: RouteDeclaration;
}

export interface Dispatcher {
  method: string;
  path: string;
  note: string;
  /** Its description for the document (a dispatcher is not mounted, so it says so here). */
  declaration?: RouteDeclaration;
}

/** Elysia's view of a mounted route (the part the listing needs). */
interface MountedRoute {
  method: string;
  path: string;
  hooks?: { detail?: Record<string, unknown> };
}

export function routeListing(dispatchers: readonly Dispatcher[], mounted: readonly MountedRoute[]): ListedRoute[] {
  return [
    ...dispatchers.map((d): ListedRoute => ({
      method: d.method,
      path: d.path,
      via: 'dispatcher',
      note: d.note,
      ...(d.declaration ? { declaration: d.declaration } : {}),
    })),
    ...mounted.map((r): ListedRoute => {
      const declaration = r.hooks?.detail?.[DECLARATION_KEY] as RouteDeclaration | undefined;
      return { method: r.method, path: r.path, via: 'router', ...(declaration ? { declaration } : {}) };
    }),
  ];
}
