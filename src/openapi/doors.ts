// The doors a route declares (src/http/declared-route.ts) as the document
// describes them: how each is signed in to, and the refusals it gives to
// every route behind it; and the document's tags.
import type { ErrorCode } from '../errors.ts';
import type { Door, Tag } from '../http/declared-route.ts';

/** Who may call, and with that the refusals every route behind the door can give. */
export const DOORS: Record<Door, { security: string[]; errors: ErrorCode[] }> = {
  public: { security: [], errors: [] },
  // A browser's unsafe request from another site, or one from a canvas's page, is refused at the door whatever the route
  // (src/http/cross-site.ts, src/canvases/guard.ts).
  session: {
    security: ['session', 'personalToken'],
    errors: ['unauthorized', 'rate_limited', 'CROSS_SITE_FORBIDDEN', 'CROSS_CANVAS_FORBIDDEN'],
  },
  admin: {
    security: ['session', 'personalToken'],
    errors: ['unauthorized', 'rate_limited', 'NOT_FOUND', 'CROSS_SITE_FORBIDDEN', 'CROSS_CANVAS_FORBIDDEN'],
  },
  deployKey: { security: ['canvasKey'], errors: ['unauthorized', 'rate_limited'] },
  runtime: {
    security: ['session'],
    errors: [
      // No session at all: the sign-in gateway's 401, before the runtime pipeline's own UNAUTHENTICATED.
      'unauthorized',
      'UNAUTHENTICATED',
      'RATE_LIMITED',
      'NOT_FOUND',
      'ARCHIVED',
      'DISABLED',
      'NOT_INVITED',
      'OWNER_ONLY',
      'SHARE_EXPIRED',
      'PASSWORD_REQUIRED',
      'STATIC_ONLY',
      'CROSS_CANVAS_FORBIDDEN',
      'CROSS_SITE_FORBIDDEN',
      'CAPABILITY_DISABLED',
    ],
  },
  metrics: { security: ['session', 'metricsToken'], errors: ['unauthorized', 'NOT_FOUND'] },
};

/** The document's tags, in this order, each with what its routes are for. */
export const TAGS: Record<Tag, string> = {
  Service: 'Health, metrics and the descriptions of this instance (llms.txt, this document)',
  'Sign-in': 'Signing in and out of the dashboard, guest invite links, and `easel login` for the CLI',
  Tokens: "A person's personal access tokens: managed with the session only; a token sees and revokes only itself",
  Management: 'The management API behind the dashboard and the CLI: canvases, sharing, versions, files, settings',
  Admin: 'Instance administration: users, canvases, Connections, settings (instance admins only; 404 to others)',
  Deploy: 'The Deploy API: publishing a canvas with its deploy key (ZIP or staged upload), versions, rollback',
  Agents: 'The MCP endpoint for agents, signed in with a personal access token',
  'SDK and dashboard': "The dashboard, the browser SDK, and canvases' own pages",
  Runtime: "The runtime API a canvas's pages call with the viewer's session: data, files, AI, realtime, Connections",
};
