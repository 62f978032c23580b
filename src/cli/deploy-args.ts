// `easel deploy` arguments and environment → one plain options object.

export const DEPLOY_USAGE = `Usage: easel deploy <dir or .zip> --canvas <id> [--api <base>] [--release-id <id>] [--expect-token <token>] [--follow-symlinks] [--json]

  <dir>               a site folder: hashed locally, only files the canvas lacks are sent (staged upload)
  <.zip>              a ZIP archive, streamed to PUT /deploy
  --canvas <id>       the canvas id (not the slug)
  --api <base>        API base URL (default: EASEL_API_BASE_URL, else http://localhost:8080)
  --release-id <id>   release identity: a rerun of a live release answers already_current
  --expect-token <t>  publish only if the canvas's publicationToken is still <t>
  --follow-symlinks   include symbolic links that resolve to a file inside the folder
                      (without it every link is skipped; links out of the folder always are)
  --json              print the DeployResult (or the error body) as JSON on stdout

The canvas key is read from EASEL_CANVAS_KEY.`;

export interface DeployOptions {
  source: string;
  canvasId: string;
  apiBase: string;
  key: string;
  releaseId: string | null;
  expectToken: string | null;
  json: boolean;
  followSymlinks: boolean;
}

export class UsageError extends Error {}

const VALUE_FLAGS = { '--canvas': 'canvasId', '--api': 'apiBase', '--release-id': 'releaseId', '--expect-token': 'expectToken' } as const;
type ValueFlag = keyof typeof VALUE_FLAGS;

/** Parses argv (after `deploy`); `help: true` when the user asked for the usage text. */
export function parseDeployArgs(argv: string[], env: Record<string, string | undefined>): DeployOptions | { help: true } {
  const values: Partial<Record<(typeof VALUE_FLAGS)[ValueFlag], string>> = {};
  const positional: string[] = [];
  let asJson = false;
  let followSymlinks = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return { help: true };
    if (arg === '--json') {
      asJson = true;
      continue;
    }
    if (arg === '--follow-symlinks') {
      followSymlinks = true;
      continue;
    }
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const flag = (eq < 0 ? arg : arg.slice(0, eq)) as ValueFlag;
      if (!(flag in VALUE_FLAGS)) throw new UsageError(`unknown option ${flag}`);
      const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      values[VALUE_FLAGS[flag]] = value;
      continue;
    }
    positional.push(arg);
  }
  if (positional.length === 0) throw new UsageError('missing the folder or .zip to deploy');
  if (positional.length > 1) throw new UsageError(`one folder or .zip at a time (got ${positional.length} paths)`);
  if (!values.canvasId) throw new UsageError('missing --canvas <id>');
  const key = env.EASEL_CANVAS_KEY?.trim();
  if (!key) throw new UsageError('set EASEL_CANVAS_KEY to the canvas secret key');
  const apiBase = (values.apiBase ?? env.EASEL_API_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(apiBase)) throw new UsageError(`--api must be an http(s) URL, got ${JSON.stringify(apiBase)}`);
  return {
    source: positional[0]!,
    canvasId: values.canvasId,
    apiBase,
    key,
    releaseId: values.releaseId ?? null,
    expectToken: values.expectToken ?? null,
    json: asJson,
    followSymlinks,
  };
}
