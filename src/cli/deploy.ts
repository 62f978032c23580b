// `easel deploy <dir or .zip> --canvas <id> …` (CONTRACT §7). A folder goes
// through the staged upload; a .zip is streamed to PUT /deploy. Exit codes:
// 0 published or already current, 1 refused or unreachable, 2 usage.
import { stat } from 'node:fs/promises';
import type { DeployResult } from '../deploy/publish.ts';
import { ApiError, DeployApi } from './api-client.ts';
import { DEPLOY_USAGE, parseDeployArgs, UsageError, type DeployContext, type DeployOptions } from './deploy-args.ts';
import { findLink, withLinkHint } from './project-link.ts';
import { readUserConfig, tokenFor } from './user-config.ts';
import { formatBytes, type CliIO } from './progress.ts';
import { errorJson } from './run.ts';
import { deployFolder, type DeployOutcome } from './staged-deploy.ts';

export type { CliIO } from './progress.ts';

export interface DeployDeps {
  /** How retries wait (tests advance an injected clock instead). */
  sleep?: (ms: number) => Promise<void>;
  /** Where .easel.json is looked for (the process's folder by default). */
  cwd?: string;
}

/** The folder's link and the stored login, for the defaults of `easel deploy`. */
function deployContext(env: Record<string, string | undefined>, cwd: string): DeployContext {
  return { linked: findLink(cwd), currentInstance: readUserConfig(env).current, tokenFor: (instance) => tokenFor(env, instance) };
}

export async function deployCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIO,
  deps: DeployDeps = {},
): Promise<number> {
  let opts: DeployOptions | null = null;
  let context: DeployContext | null = null;
  try {
    context = deployContext(env, deps.cwd ?? process.cwd());
    const parsed = parseDeployArgs(argv, env, context);
    if ('help' in parsed) {
      io.stdout(DEPLOY_USAGE + '\n');
      return 0;
    }
    opts = parsed;
    const kind = await sourceKind(opts.source);
    const api = new DeployApi(opts.apiBase, opts.key, deps.sleep);
    const outcome = kind === 'folder' ? await deployFolder(api, opts, io) : await deployZip(api, opts, io);
    io.stdout(opts.json ? JSON.stringify(outcome.result, null, 2) + '\n' : summary(outcome));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`easel deploy: ${err.message}\n\n${DEPLOY_USAGE}\n`);
      return 2;
    }
    if (err instanceof ApiError) {
      const told = (opts && context ? withLinkHint(err, context.linked, opts.canvasId) : err) as ApiError;
      io.stderr(failureText(told));
      if (argv.includes('--json')) io.stdout(errorJson(told));
      return 1;
    }
    io.stderr(`easel deploy: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function sourceKind(source: string): Promise<'folder' | 'zip'> {
  const info = await stat(source).catch(() => null);
  if (!info) throw new UsageError(`${source}: no such file or folder`);
  if (info.isDirectory()) return 'folder';
  if (info.isFile() && (/\.zip$/i.test(source) || (await isZip(source)))) return 'zip';
  throw new UsageError(`${source}: expected a folder or a .zip file`);
}

async function isZip(path: string): Promise<boolean> {
  const head = new Uint8Array(await Bun.file(path).slice(0, 4).arrayBuffer());
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

/** The archive is streamed from disk as the body; the server unpacks it. */
async function deployZip(api: DeployApi, opts: DeployOptions, io: CliIO): Promise<DeployOutcome> {
  const size = Bun.file(opts.source).size;
  const query = new URLSearchParams();
  if (opts.releaseId !== null) query.set('releaseId', opts.releaseId);
  if (opts.expectToken !== null) query.set('expectedPublicationToken', opts.expectToken);
  if (opts.preview) query.set('preview', 'true');
  const qs = query.size > 0 ? `?${query}` : '';
  io.stderr(`uploading ${opts.source} (${formatBytes(size)})\n`);
  const reply = await api.send({
    method: 'PUT',
    path: `${opts.routes}/${encodeURIComponent(opts.canvasId)}/deploy${qs}`,
    contentType: 'application/zip',
    body: () => Bun.file(opts.source),
    onRetry: (why, ms) => io.stderr(`deploy: ${why}; retrying in ${(ms / 1000).toFixed(1)} s\n`),
  });
  return { result: reply.body as unknown as DeployResult, sentFiles: 1, sentBytes: size };
}

function summary({ result: r, sentFiles, sentBytes }: DeployOutcome): string {
  if (r.outcome === 'unchanged') {
    return `nothing changed: the files equal live version ${r.version} at ${r.url}; no version was made (--force deploys anyway)\n`;
  }
  const lines =
    r.outcome === 'already_current'
      ? [`already current: version ${r.version}${r.releaseId !== null ? ` (release ${r.releaseId})` : ''} is live at ${r.url}`]
      : r.outcome === 'preview'
        ? [`preview version ${r.version} at ${r.previewUrl} (not live; easel rollback ${r.version} makes it live)`]
        : [`published version ${r.version} at ${r.url}`];
  lines.push(`  files        ${r.fileCount} (${formatBytes(r.totalBytes)}); sent ${sentFiles} (${formatBytes(sentBytes)})`);
  lines.push(`  version id   ${r.versionId}`);
  lines.push(`  release id   ${r.releaseId ?? '(none)'}`);
  lines.push(`  token        ${r.publicationToken}`);
  for (const w of r.warnings ?? []) lines.push(`warning: ${w}`);
  return lines.join('\n') + '\n';
}

/** `easel deploy: CODE: message`, then what a conflict says about the live state. */
function failureText(err: ApiError): string {
  const b = err.body ?? {};
  let text = `easel deploy: ${err.code}: ${err.message}`;
  if (typeof b.path === 'string' && !err.message.includes(b.path)) text += ` (path: ${b.path})`;
  text += '\n';
  const current = b.current as { publicationToken?: string; version?: number | null; releaseId?: string | null } | undefined;
  if (current && typeof current === 'object') {
    text += `  live: version ${current.version ?? '(none)'}, release ${current.releaseId ?? '(none)'}, publicationToken ${current.publicationToken}\n`;
  }
  const release = b.release as { version?: number } | undefined;
  if (release && typeof release === 'object') text += `  release ${String(release.version)} is in the history, not live\n`;
  return text;
}
