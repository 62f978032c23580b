// `easel deploy` arguments, environment, the folder's link and the stored
// login → one plain options object. The canvas key (EASEL_CANVAS_KEY) goes to
// the Deploy API; without one, a personal access token (EASEL_TOKEN or
// `easel login`) goes to the same deploy service through the people's routes.
import { join } from 'node:path';
import { baseUrl, DEFAULT_INSTANCE, parseArgs, UsageError } from './args.ts';
import type { ProjectLink } from './project-link.ts';

export { UsageError } from './args.ts';

export const DEPLOY_USAGE = `Usage: easel deploy [<dir or .zip>] [--canvas <id>] [--api <base>] [--release-id <id>] [--expect-token <token>] [--preview] [--force] [--follow-symlinks] [--json]

  <dir>               a site folder: its contents are hashed locally and only files the canvas
                      lacks are sent (staged upload); default: the linked folder (easel link)
  <.zip>              a ZIP archive, streamed to PUT /deploy
  --canvas <id>       the canvas id (default: the one in .easel.json)
  --api <base>        API base URL (default: EASEL_API_BASE_URL, .easel.json, your last login,
                      else http://localhost:8080)
  --release-id <id>   release identity: a rerun of a live release answers already_current
  --expect-token <t>  publish only if the canvas's publicationToken is still <t>
  --preview           make a version without going live: it is served at its preview address
                      (previewUrl); easel rollback <n> makes it live
  --force             deploy a folder even when its files equal the live version's (without it,
                      --release-id or --expect-token, such a deploy says "nothing changed")
  --follow-symlinks   include symbolic links that resolve to a file inside the folder
                      (without it every link is skipped; links out of the folder always are)
  --json              print the DeployResult (or the error body) as JSON on stdout

Credentials: EASEL_CANVAS_KEY (the canvas's deploy key, for CI), else EASEL_TOKEN or
the token easel login stored (you deploy as yourself: owner or editor).`;

export interface DeployOptions {
  source: string;
  canvasId: string;
  apiBase: string;
  /** The bearer credential: a canvas key or a personal access token. */
  key: string;
  /** Where the deploy routes are for that credential: `/v1/canvases` (key) or `/api/canvases` (token). */
  routes: '/v1/canvases' | '/api/canvases';
  releaseId: string | null;
  expectToken: string | null;
  preview: boolean;
  force: boolean;
  json: boolean;
  followSymlinks: boolean;
}

export interface DeployContext {
  /** The folder's `.easel.json`, if any, with the folder it is in. */
  linked: { folder: string; link: ProjectLink } | null;
  /** The instance `easel login` used last. */
  currentInstance: string | null;
  /** A stored or EASEL_TOKEN token for an instance. */
  tokenFor: (instance: string) => string | null;
}

const NO_CONTEXT: DeployContext = { linked: null, currentInstance: null, tokenFor: () => null };

/** Parses argv (after `deploy`); `help: true` when the user asked for the usage text. */
export function parseDeployArgs(
  argv: string[],
  env: Record<string, string | undefined>,
  context: DeployContext = NO_CONTEXT,
): DeployOptions | { help: true } {
  const args = parseArgs(argv, {
    values: ['--canvas', '--api', '--release-id', '--expect-token'],
    flags: ['--follow-symlinks', '--preview', '--force'],
  });
  if (args.help) return { help: true };
  if (args.positional.length > 1) throw new UsageError(`one folder or .zip at a time (got ${args.positional.length} paths)`);
  const { linked } = context;
  const source = args.positional[0] ?? (linked ? join(linked.folder, linked.link.dir ?? '.') : null);
  if (source === null) throw new UsageError('missing the folder or .zip to deploy (or run easel link first)');
  const canvasId = args.values['--canvas'] ?? linked?.link.canvasId;
  if (!canvasId) throw new UsageError('missing --canvas <id> (or run easel link <canvas> in this folder)');
  const apiBase = baseUrl(
    args.values['--api'] ?? env.EASEL_API_BASE_URL ?? linked?.link.instance ?? context.currentInstance ?? DEFAULT_INSTANCE,
    '--api',
  );
  const canvasKey = env.EASEL_CANVAS_KEY?.trim();
  const token = canvasKey ? null : context.tokenFor(apiBase);
  if (!canvasKey && !token) throw new UsageError(`set EASEL_CANVAS_KEY to the canvas's deploy key, or sign in with easel login ${apiBase}`);
  return {
    source,
    canvasId,
    apiBase,
    key: canvasKey || token!,
    routes: canvasKey ? '/v1/canvases' : '/api/canvases',
    releaseId: args.values['--release-id'] ?? null,
    expectToken: args.values['--expect-token'] ?? null,
    preview: args.flags.has('--preview'),
    force: args.flags.has('--force'),
    json: args.flags.has('--json'),
    followSymlinks: args.flags.has('--follow-symlinks'),
  };
}
