// Non-fatal deploy warnings (spec "DeployResult"): text/plain downgrades, a
// possible canvas key in a text file, and a missing root index.html.
import { isServedAsText } from './mime.ts';

export const NO_INDEX_WARNING = 'no index.html: the canvas root will answer 404';

/**
 * Warnings for a deploy's files, sorted by path. `keyLintPaths` are the files
 * whose text matched the canvas-key shape (the ZIP path reports them; the
 * staged path only logs them and passes []).
 */
export function deployWarnings(files: Array<{ path: string }>, opts: { keyLintPaths: string[] }): string[] {
  const paths = files.map((f) => f.path).sort(byCodeUnit);
  const out: string[] = [];
  for (const path of paths) if (isServedAsText(path)) out.push(`${path} will be served as text/plain`);
  for (const path of [...new Set(opts.keyLintPaths)].sort(byCodeUnit)) out.push(`${path} may contain a canvas API key`);
  if (!servesRoot(paths)) out.push(NO_INDEX_WARNING);
  return out;
}

/** index.html at the root, or exactly one HTML file (the serving path answers the root with it). */
function servesRoot(paths: string[]): boolean {
  if (paths.includes('index.html')) return true;
  return paths.filter((p) => /\.html?$/i.test(p)).length === 1;
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
