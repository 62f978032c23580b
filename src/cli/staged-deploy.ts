// A folder deploy through the staged upload: hash locally, begin, send only
// the blobs the canvas lacks (four at a time), finalize.
import type { DeployResult } from '../deploy/publish.ts';
import { ApiError, type DeployApi } from './api-client.ts';
import type { DeployOptions } from './deploy-args.ts';
import { formatBytes, Progress, type CliIO } from './progress.ts';
import { hashSite, listSite, type LocalFile, type SkippedLink } from './site-files.ts';
import { nodeProjectFolder } from '../deploy/project-folder.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const UPLOAD_CONCURRENCY = 4;

/** The CLI's own answer when nothing would change (no request made a version). */
export interface UnchangedResult {
  outcome: 'unchanged';
  url: string;
  version: number;
  publicationToken: string;
}

export interface DeployOutcome {
  result: DeployResult | UnchangedResult;
  sentFiles: number;
  sentBytes: number;
}

export async function deployFolder(api: DeployApi, opts: DeployOptions, io: CliIO): Promise<DeployOutcome> {
  // Before listing: node_modules alone can hold tens of thousands of files.
  const project = nodeProjectFolder((path) => existsSync(join(opts.source, path)));
  if (project) {
    const next = project.output
      ? `its site is built into ${project.output}/: use that folder (${join(opts.source, project.output)}), or make it the default with easel link <canvas> --dir ${project.output}`
      : 'build it first (npm run build), then use the folder the build writes (often dist/ or build/)';
    throw new ApiError('NOT_A_SITE', `this folder is ${project.reason}; ${next}`, 0, null);
  }
  const skipped: SkippedLink[] = [];
  const listed = listSite(opts.source, {
    followSymlinks: opts.followSymlinks,
    onSkip: (link) => {
      skipped.push(link);
      io.stderr(`skipping ${link.path} -> ${link.target}: ${link.why}\n`);
    },
  });
  if (skipped.length > 0) {
    io.stderr(
      `skipped ${skipped.length} symbolic link(s); ${opts.followSymlinks ? 'only links to files inside the folder are followed' : 'links are never followed without --follow-symlinks'}\n`,
    );
  }
  if (listed.length === 0)
    throw new ApiError('EMPTY_DEPLOY', `no files to deploy in ${opts.source} (dotfiles and symbolic links are skipped)`, 0, null);
  // Said once, because a ZIP of a folder keeps the folder and a folder deploy does not.
  io.stderr(
    `deploying the contents of ${opts.source.replace(/\/+$/, '')}/ (${listed.length} file(s); the folder itself is not part of the canvas's paths)\n`,
  );
  const hashing = new Progress(
    io,
    'hashing',
    listed.length,
    listed.reduce((n, f) => n + f.size, 0),
    1,
  );
  const files = await hashSite(listed, (f) => hashing.advance(f.size));
  hashing.finish();
  // Coordination flags keep their spec meaning: the server decides (a rerun of the live release answers already_current, a stale token is refused).
  if (!opts.force && opts.releaseId === null && opts.expectToken === null) {
    const live = await liveUnchanged(api, opts, files);
    if (live) return { result: live, sentFiles: 0, sentBytes: 0 };
  }

  const base = `${opts.routes}/${encodeURIComponent(opts.canvasId)}/uploads`;
  const begin = await api.send({
    method: 'POST',
    path: base,
    contentType: 'application/json',
    body: () =>
      JSON.stringify({
        manifest: files.map((f) => ({ path: f.path, hash: f.hash, size: f.size })),
        ...(opts.releaseId !== null ? { releaseId: opts.releaseId } : {}),
        ...(opts.expectToken !== null ? { expectedPublicationToken: opts.expectToken } : {}),
        ...(opts.preview ? { preview: true } : {}),
      }),
    onRetry: (why, ms) => io.stderr(`begin: ${why}; retrying in ${(ms / 1000).toFixed(1)} s\n`),
  });
  const answer = begin.body ?? {};
  if (typeof answer.outcome === 'string') return { result: answer as unknown as DeployResult, sentFiles: 0, sentBytes: 0 };
  const uploadId = String(answer.uploadId);
  const missing = Array.isArray(answer.missingHashes) ? (answer.missingHashes as string[]) : [];

  const byHash = new Map<string, LocalFile>();
  for (const f of files) if (!byHash.has(f.hash)) byHash.set(f.hash, f);
  const sent = { files: 0, bytes: 0 };
  const blobPath = (hash: string) => `${base}/${encodeURIComponent(uploadId)}/blobs/${hash}`;
  await sendBlobs(api, io, missing, byHash, blobPath, sent);

  let retried = false;
  const finalize = () =>
    api
      .send({
        method: 'POST',
        path: `${base}/${encodeURIComponent(uploadId)}/finalize`,
        contentType: 'application/json',
        body: () =>
          JSON.stringify({ ...(opts.releaseId !== null ? { releaseId: opts.releaseId } : {}), ...(opts.preview ? { preview: true } : {}) }),
        onRetry: (why, ms) => {
          retried = true;
          io.stderr(`finalize: ${why}; retrying in ${(ms / 1000).toFixed(1)} s\n`);
        },
      })
      .catch((err: unknown) => {
        // The first try went through but its answer was lost: say so rather than leave a bare code.
        if (retried && err instanceof ApiError && err.code === 'UPLOAD_ALREADY_FINALIZED') {
          throw new ApiError(
            err.code,
            `${err.message}: an earlier try whose answer was lost has most likely published; rerun with --release-id to make retries answer already_current`,
            err.status,
            err.body,
          );
        }
        throw err;
      });
  let done;
  try {
    done = await finalize();
  } catch (err) {
    // A blob the canvas held at begin can vanish before finalize (garbage
    // collection); the server names it, so send it and finalize once more.
    if (!(err instanceof ApiError) || err.code !== 'UPLOAD_MISSING_BLOB' || !Array.isArray(err.body?.missingHashes)) throw err;
    await sendBlobs(api, io, err.body.missingHashes as string[], byHash, blobPath, sent);
    done = await finalize();
  }
  return { result: done.body as unknown as DeployResult, sentFiles: sent.files, sentBytes: sent.bytes };
}

/**
 * The live version when the folder's files (paths and hashes) equal it, else
 * null: deploying the same folder again would only churn the kept versions.
 */
async function liveUnchanged(api: DeployApi, opts: DeployOptions, files: LocalFile[]): Promise<UnchangedResult | null> {
  const id = encodeURIComponent(opts.canvasId);
  let listing: Record<string, unknown> | null;
  try {
    listing = (await api.send({ method: 'GET', path: `${opts.routes}/${id}/files` })).body;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_PUBLISHED') return null;
    throw err;
  }
  const live = Array.isArray(listing?.files) ? (listing.files as Array<{ path: string; hash: string }>) : [];
  const mine = new Map(files.map((f) => [f.path, f.hash]));
  if (live.length !== mine.size || live.some((f) => mine.get(f.path) !== f.hash)) return null;
  const view =
    (await api.send({ method: 'GET', path: opts.routes === '/v1/canvases' ? `/v1/canvases/${id}` : `/api/canvases/${id}` })).body ?? {};
  return {
    outcome: 'unchanged',
    url: String(view.url),
    version: Number(listing?.version),
    publicationToken: String(view.publicationToken),
  };
}

async function sendBlobs(
  api: DeployApi,
  io: CliIO,
  hashes: string[],
  byHash: Map<string, LocalFile>,
  pathOf: (hash: string) => string,
  sent: { files: number; bytes: number },
): Promise<void> {
  const queue = hashes.map((hash) => {
    const file = byHash.get(hash);
    if (!file) throw new ApiError('UPLOAD_UNEXPECTED_BLOB', `the server asked for ${hash}, which no local file has`, 0, null);
    return file;
  });
  if (queue.length === 0) return;
  const progress = new Progress(
    io,
    'uploading',
    queue.length,
    queue.reduce((n, f) => n + f.size, 0),
  );
  let next = 0;
  let failure: unknown = null;
  async function worker(): Promise<void> {
    while (failure === null && next < queue.length) {
      const file = queue[next++]!;
      try {
        await api.send({
          method: 'PUT',
          path: pathOf(file.hash),
          contentType: 'application/octet-stream',
          body: () => Bun.file(file.absolute),
          onRetry: (why, ms) => progress.note(`${file.path}: ${why}; retrying in ${(ms / 1000).toFixed(1)} s`),
        });
      } catch (err) {
        failure ??= err instanceof ApiError ? withPath(err, file.path) : err;
        return;
      }
      sent.files++;
      sent.bytes += file.size;
      progress.advance(file.size);
    }
  }
  await Promise.all(Array.from({ length: Math.min(UPLOAD_CONCURRENCY, queue.length) }, worker));
  progress.finish();
  if (failure !== null) throw failure;
  if (!io.isTTY) io.stderr(`sent ${sent.files} file(s), ${formatBytes(sent.bytes)}\n`);
}

/** Blob errors carry no path on the wire (blobs are addressed by hash); the CLI knows which file it was. */
function withPath(err: ApiError, path: string): ApiError {
  if (err.body && typeof err.body.path === 'string') return err;
  return new ApiError(
    err.code,
    `${err.message} (${path})`,
    err.status,
    err.body ? { ...err.body, path } : { code: err.code, message: err.message, path },
  );
}
