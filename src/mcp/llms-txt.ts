import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import type { Config } from '../config.ts';
import { KEPT_VERSIONS } from '../deploy/publish.ts';
import { ZIP_LIMITS } from '../deploy/zip/deploy.ts';
import { INLINE_FILE_MAX } from './tools.ts';

const MiB = 1024 * 1024;

/**
 * GET /llms.txt: how an agent publishes to this instance, in plain text, for
 * anyone (it holds no secret: only this instance's addresses and limits).
 */
export function llmsTxt(config: Pick<Config, 'baseUrl' | 'apiBaseUrl' | 'urlMode' | 'canvasHost' | 'rateLimitDeployPerMin'>): string {
  const base = config.baseUrl.replace(/\/+$/, '');
  const api = config.apiBaseUrl.replace(/\/+$/, '');
  const canvasAt = config.urlMode === 'subdomain' ? `${new URL(base).protocol}//{slug}.${config.canvasHost}/` : `${base}/c/{slug}/`;
  return `# Easel at ${base}

> Easel publishes static sites ("canvases") behind this company's sign-in.
> Each canvas is served at ${canvasAt} and its pages can use a browser SDK.

## 1. Get a token (once, by the person you act for)

A person signs in at ${base}/ and creates a personal access token (Tokens
page, or POST ${base}/api/tokens {"name": "my agent"} with their session).
It starts with easel_pat_ and is shown once. Send it as
"Authorization: Bearer <token>"; it acts as that person on ${base}/api/* and
${base}/mcp, never on canvas pages.

## 2a. Publish over MCP (Streamable HTTP, stateless, JSON)

Endpoint: POST ${base}/mcp with the bearer token. Tools:
list_canvases, create_canvas {title, slug?}, get_canvas {canvasId},
deploy_canvas {canvasId, files: [{path, content, encoding: "utf8"|"base64"}],
releaseId?, expectedPublicationToken?}, begin_deploy / add_files /
finalize_deploy (large sites), get_canvas_file {canvasId, path} (content up to
${INLINE_FILE_MAX / 1024} KiB), update_canvas (title, slug, sharing), set_capabilities
(runtime switches and policy), list_versions {canvasId} (the numbers
rollback_canvas {canvasId, version} takes), unpublish_canvas,
regenerate_deploy_key, export_canvas_data {canvasId, kind: "kv"|"collection"|
"submissions"|"files", name?, format?: "json"|"ndjson"|"csv"} (what a canvas
collected), browse_canvas_data {canvasId, kind, name?, q?, limit?, after?} (a
page of it, searched), delete_canvas_data_item {canvasId, kind, name?, item}.
A failure is a tool error "CODE: message", then JSON.

MCP client configuration:
{"mcpServers": {"easel": {"type": "http", "url": "${base}/mcp",
  "headers": {"Authorization": "Bearer easel_pat_..."}}}}

## 2b. Publish with curl (Deploy API, the canvas's own key)

Create a canvas (its deploy key is in the answer, once):
  curl -X POST ${base}/api/canvases -H "Authorization: Bearer $EASEL_TOKEN" \\
    -H "Content-Type: application/json" -d '{"title": "My site"}'
Deploy a ZIP of the site (index.html at its root):
  curl -X PUT ${api}/v1/canvases/{id}/deploy -H "Authorization: Bearer $EASEL_CANVAS_KEY" \\
    --data-binary @site.zip
Add ?releaseId=<commit> to make repeats no-ops; the answer's url is the canvas.
Deploy what a browser runs (a build's output, or plain HTML, CSS and JS), not
a project's sources, and link its files relatively (assets/app.js, not
/assets/app.js): a canvas may be served below /c/{slug}/. The answer's
warnings say when a link, a TypeScript entry or node_modules/ show otherwise.
Read back: GET ${api}/v1/canvases/{id}, /versions, /files?path=index.html.

## 3. The browser SDK (in the canvas's pages)

<script src="/sdk/v1.js"></script> gives the global \`easel\`: me(), kv,
files, ai, realtime channels, connections, collections(name),
submissions(name), canvases (publishing from a page). Types:
${base}/sdk/v1.d.ts

## Limits

ZIP body ${ZIP_LIMITS.bodyBytes / MiB} MB, ${ZIP_LIMITS.files} files, ${ZIP_LIMITS.fileBytes / MiB} MB a file, ${ZIP_LIMITS.canvasBytes / MiB} MB a canvas;
${config.rateLimitDeployPerMin} deploys a minute per canvas; the ${KEPT_VERSIONS} most recent versions are kept.
`;
}

export function llmsTxtRoute(config: Pick<Config, 'baseUrl' | 'apiBaseUrl' | 'urlMode' | 'canvasHost' | 'rateLimitDeployPerMin'>) {
  // The text depends on the configuration alone: written once.
  const text = llmsTxt(config);
  const headers = {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'public, max-age=300',
    'x-content-type-options': 'nosniff',
  };
  return declaredRoutes('llms-txt', null, [
    publicRoute(
      {
        method: 'GET',
        path: '/llms.txt',
        tag: 'Service',
        summary: 'How agents publish here (llms.txt)',
        answer: { contentType: 'text/plain', description: 'markdown' },
      },
      () => new Response(text, { headers }),
    ),
  ]);
}
