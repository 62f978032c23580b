// What each mounted route is, for GET /openapi.json: one entry per route of
// the app's listing (keyed `METHOD path` in router syntax), with the request
// schemas the routes themselves validate with and the refusals the route adds
// to those of its door (see DOORS). test/openapi.test.ts holds this list and
// the mounted routes to each other: a route added without an entry, or an
// entry left after its route went, fails it.
import type { Door, RouteDeclaration, Tag } from '../http/declared-route.ts';

/** A route's description while its route does not declare it yet (src/http/declared-route.ts). */
export type RouteDoc = Omit<RouteDeclaration, 'method' | 'path' | 'query'> & { query?: Record<string, string> };

const r = (tag: Tag, door: Door, summary: string, more: Omit<RouteDoc, 'tag' | 'door' | 'summary'> = {}): RouteDoc => ({
  tag,
  door,
  summary,
  ...more,
});
export const CATALOG: Record<string, RouteDoc> = {
  // Service
  'GET /metrics': r('Service', 'metrics', 'Prometheus metrics (admin session or EASEL_METRICS_TOKEN)', {
    answer: { contentType: 'text/plain; version=0.0.4', description: 'Prometheus text exposition' },
  }),

  // Sign-in

  // Management

  // Browser drafts (the dashboard's editor)

  // Admin

  // Deploy API (the canvas key)

  // Agents

  // SDK and dashboard

  // Runtime API (pages of the canvas, with the viewer's session)
};
