// What `easel version` reports: the release, the commit it was built from,
// when, and for which platform. The binary's entry (build.ts) registers the
// facts baked in at build time; from source the commit is asked of git.
import { join } from 'node:path';
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

export interface BakedBuild {
  commit: string;
  /** ISO 8601, UTC. */
  buildDate: string;
  /** Bun's compile target, e.g. `bun-linux-arm64`. */
  target: string;
}

export interface BuildInfo {
  version: string;
  commit: string;
  /** Null when running from source. */
  buildDate: string | null;
  target: string;
  bun: string;
}

let baked: BakedBuild | null = null;

export function registerBuild(build: BakedBuild): void {
  baked = build;
}

export function buildInfo(): BuildInfo {
  return {
    version: VERSION,
    commit: baked?.commit ?? gitCommit(join(import.meta.dir, '..')) ?? 'unknown',
    buildDate: baked?.buildDate ?? null,
    target: baked?.target ?? `${process.platform}-${process.arch}`,
    bun: Bun.version,
  };
}

/** The short commit of the checkout at `dir`, or null (no git, not a checkout). */
export function gitCommit(dir: string): string | null {
  try {
    const r = Bun.spawnSync(['git', 'rev-parse', '--short=12', 'HEAD'], { cwd: dir, stdout: 'pipe', stderr: 'ignore' });
    const out = r.stdout.toString().trim();
    return r.exitCode === 0 && /^[0-9a-f]{7,40}$/.test(out) ? out : null;
  } catch {
    return null;
  }
}
