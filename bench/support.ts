// What several benches share: an owner and a viewer on the list of one
// restricted canvas, `easel serve` as a child process, and the cluster's
// real backing servers (the test suite's own: Postgres, Redis, s3rver).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Canvas } from '../src/canvases/record.ts';
import { loadConfig } from '../src/config.ts';
import { createCore, type Core } from '../src/foundation.ts';
import { newId, newToken, sha256Hex } from '../src/ids.ts';

const ROOT = join(import.meta.dir, '..');
/**
 * The checkout whose `src/main.ts` the benches start: this one, or
 * BENCH_EASEL_ROOT (another worktree) to compare two versions in the same
 * session with the same load generator and seed.
 */
export const SERVER_ROOT = process.env.BENCH_EASEL_ROOT ?? ROOT;

const CLOCK_TICKS_PER_S = 100;

/** User + system CPU seconds in a /proc `stat` line (of a process or one of its threads). */
function statCpuSeconds(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
}

/**
 * CPU seconds of each of `pid`'s threads, summed by kind: `main` (the event
 * loop), `pool` (Bun's thread pool: file writes, renames), `jit`, `gc`, and
 * `other`. Which one a phase is bound by says more than the process total.
 */
export function threadCpuSeconds(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    let name: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      continue; // the thread ended meanwhile
    }
    const kind =
      tid === String(pid)
        ? 'main'
        : name.startsWith('Bun Pool')
          ? 'pool'
          : name.startsWith('JIT')
            ? 'jit'
            : /^(HeapHelper|Heap Helper|GC|mi-)/.test(name)
              ? 'gc'
              : 'other';
    out[kind] = (out[kind] ?? 0) + statCpuSeconds(stat);
  }
  return out;
}

/** User + system CPU seconds of `pid` and its live children (nginx's worker), from /proc. */
export function cpuSeconds(pid: number): number {
  const own = statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  let children = '';
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
  } catch {}
  return (
    own +
    children
      .split(' ')
      .filter(Boolean)
      .reduce((sum, child) => sum + cpuSeconds(Number(child)), 0)
  );
}

/** owner@bench.test owns the canvas `slug`; viewer@bench.test is a viewer on its list. */
export async function seedViewerCanvas(
  ctx: Core,
  slug: string,
): Promise<{ canvas: Canvas; ownerId: string; viewerId: string; now: number }> {
  const owner = await ctx.users.ensure('owner@bench.test', 'Owner');
  const viewer = await ctx.users.ensure('viewer@bench.test', 'Viewer');
  const now = Date.now();
  const canvas = await ctx.canvases.insert({
    id: newId(),
    slug,
    title: 'bench',
    ownerId: owner.id,
    keyHash: sha256Hex(newToken()),
    publicationToken: newToken(),
    now,
  });
  await ctx.canvases.setMember(canvas.id, viewer.id, 'viewer', now);
  return { canvas, ownerId: owner.id, viewerId: viewer.id, now };
}

/**
 * A data directory where a signed-in viewer may read `asset` (and an
 * index.html) on the restricted canvas `slug`'s live version: what the
 * serving benches ask for. Answers the viewer's session cookie.
 */
export async function seedServedAsset(dataDir: string, slug: string, asset: string, assetBytes: Uint8Array): Promise<string> {
  const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'silent' }));
  const { canvas, ownerId, viewerId, now } = await seedViewerCanvas(ctx, slug);
  const files = { 'index.html': new TextEncoder().encode(`<script src="${asset}"></script>`), [asset]: assetBytes };
  const versionId = newId();
  ctx
    .db!.query(
      `INSERT INTO versions (id, canvas_id, number, source, status, created_by, created_at, file_count, total_bytes) VALUES (?, ?, 1, 'api', 'ready', ?, ?, 2, ?)`,
    )
    .run(versionId, canvas.id, ownerId, now, assetBytes.length);
  for (const [path, bytes] of Object.entries(files)) {
    const { hash, size } = await ctx.blobs.putBytes(bytes);
    const mime = path.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/html; charset=utf-8';
    ctx
      .db!.query('INSERT INTO version_files (version_id, path, hash, size, mime) VALUES (?, ?, ?, ?, ?)')
      .run(versionId, path, hash, size, mime);
  }
  await ctx.canvases.update(canvas.id, { current_version_id: versionId }, now);
  const cookie = `easel_session=${await ctx.sessions.create(viewerId)}`;
  ctx.db!.close();
  return cookie;
}

/** One `easel serve` on `dir` (rate limits off); its port once it printed its start line. */
export async function spawnEasel(dir: string, env: Record<string, string>): Promise<{ process: Bun.Subprocess; port: number }> {
  const logFile = join(dir, 'server.log');
  // BENCH_CPU_PROF=<dir>: Bun's CPU profile of each server lands there (written at its SIGTERM), as in bench/serve.ts.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = Bun.spawn([process.execPath, ...profile, join(SERVER_ROOT, 'src/main.ts'), 'serve'], {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH ?? '', EASEL_DATA_DIR: dir, EASEL_PORT: '0', EASEL_RATELIMIT_ENABLED: 'false', ...env },
    stdin: 'ignore',
    stdout: Bun.file(logFile),
    stderr: 'ignore',
  });
  for (let i = 0; i < 400; i++) {
    await Bun.sleep(25);
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(safeRead(logFile));
    if (m) return { process: child, port: Number(m[1]) };
  }
  throw new Error('easel serve did not start');
}

/** A fresh Postgres database, Redis and S3 prefix: the environment every node of a bench cluster shares. */
export async function clusterEnv(bucket: string, prefix: string): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  const { createTestDatabase } = await import('../test/support/postgres-server.ts');
  const { createTestRedis } = await import('../test/support/redis-server.ts');
  const { startS3Server } = await import('../test/support/s3-server.ts');
  const s3 = await startS3Server(bucket);
  return {
    env: { EASEL_DATABASE_URL: await createTestDatabase(), EASEL_REDIS_URL: await createTestRedis(), ...s3.env(prefix) },
    stop: () => s3.stop(),
  };
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
