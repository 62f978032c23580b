// What a mounted route is, for GET /openapi.json, while it does not declare
// itself (src/http/declared-route.ts): one entry per route of the app's
// listing (keyed `METHOD path` in router syntax). test/openapi.test.ts holds
// this list and the mounted routes to each other. Every route declares itself
// now, so it is empty; it goes once nothing reads it.
import type { RouteDeclaration } from '../http/declared-route.ts';

/** A route's description while its route does not declare it yet. */
export type RouteDoc = Omit<RouteDeclaration, 'method' | 'path' | 'query'> & { query?: Record<string, string> };

export const CATALOG: Record<string, RouteDoc> = {};
