// What GET /openapi.json says of the realtime upgrade. It reaches Bun's
// server before the router (src/app.ts DISPATCHERS), so this declaration is
// the route's description, not its mounting.
import type { RouteDeclaration } from '../../http/declared-route.ts';

export const REALTIME_UPGRADE: RouteDeclaration = {
  method: 'GET',
  path: '/v1/c/:slug/realtime',
  door: 'runtime',
  tag: 'Runtime',
  summary: 'Realtime channels and presence (WebSocket upgrade)',
  answer: { status: 101, contentType: 'application/json', description: 'a WebSocket speaking JSON frames (subscribe, publish, presence)' },
  errors: ['UPGRADE_REQUIRED'],
};
