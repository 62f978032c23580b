// Non-fatal deploy warnings (spec "DeployResult"): text/plain downgrades, a
// possible canvas key in a text file (ZIP deploys; the staged path only logs
// it, spec "Stage rules" 3), a missing root index.html — and Easel's own for
// the usual mistakes: everything inside one wrapping folder (`zip -r site.zip
// mysite`), files the root page references that are not in the deploy, and
// paths that differ only in case.
import type { BlobStore } from '../blobs/store.ts';
import { composedPath } from '../canvases/file-path.ts';
import { isServedAsText } from './mime.ts';

export const NO_INDEX_WARNING = 'no index.html: the canvas root will answer 404';

/** The root page is read for its references only up to this size. */
const MAX_ROOT_PAGE_BYTES = 1024 * 1024;
/** A deploy with thousands of missing references needs a few named, not all. */
const MAX_NAMED_REFERENCES = 5;

export interface WarnedFile {
  path: string;
  hash: string;
  size: number;
}

/**
 * Warnings for a deploy's files, in a stable order. `keyLintPaths` are the
 * files whose text matched the canvas-key shape; `rootPage` is the text of
 * the page the root serves (null when there is none or it was not read).
 */
export function deployWarnings(files: Array<{ path: string }>, opts: { keyLintPaths: string[]; rootPage?: string | null }): string[] {
  const paths = files.map((f) => f.path).sort(byCodeUnit);
  const out: string[] = [];
  for (const path of paths) if (isServedAsText(path)) out.push(`${path} will be served as text/plain`);
  for (const path of [...new Set(opts.keyLintPaths)].sort(byCodeUnit)) out.push(`${path} may contain a canvas API key`);
  if (!servesRoot(paths)) out.push(NO_INDEX_WARNING);
  const wrapper = wrappingFolder(paths);
  if (wrapper !== null)
    out.push(
      `everything is inside the folder "${wrapper}/", so its pages are not at the canvas root: deploy the folder's contents instead (zip from inside it: cd ${wrapper} && zip -r ../site.zip .; or easel deploy ${wrapper})`,
    );
  const root = rootPagePath(paths);
  if (root !== null && opts.rootPage) out.push(...missingReferences(root, opts.rootPage, new Set(paths)));
  out.push(...caseCollisions(paths));
  return out;
}

/** The root page's text, read from the blob store (null when the root serves no page). */
export async function readRootPage(files: WarnedFile[], blobs: BlobStore): Promise<string | null> {
  const root = rootPagePath(files.map((f) => f.path));
  const file = root === null ? undefined : files.find((f) => f.path === root);
  if (!file || file.size > MAX_ROOT_PAGE_BYTES || !(await blobs.local(file.hash))) return null;
  return blobs.file(file.hash).text();
}

/** index.html at the root, or exactly one HTML file (the serving path answers the root with it). */
function servesRoot(paths: string[]): boolean {
  return rootPagePath(paths) !== null;
}

function rootPagePath(paths: string[]): string | null {
  if (paths.includes('index.html')) return 'index.html';
  const html = paths.filter((p) => /\.html?$/i.test(p));
  return html.length === 1 ? html[0]! : null;
}

/** The one folder every file is inside, when there is no index.html at the root. */
function wrappingFolder(paths: string[]): string | null {
  if (paths.length === 0 || paths.includes('index.html')) return null;
  const first = paths[0]!.split('/')[0]!;
  return paths.every((p) => p.startsWith(`${first}/`)) ? first : null;
}

const REFERENCE = /\s(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi;

/** Relative `src`/`href` targets of the root page that the deploy does not hold. */
function missingReferences(pagePath: string, html: string, present: Set<string>): string[] {
  const base = pagePath.includes('/') ? pagePath.slice(0, pagePath.lastIndexOf('/') + 1) : '';
  const missing = new Set<string>();
  // Comments and scripts' bodies are not markup.
  const markup = html.replace(/<!--[\s\S]*?-->/g, '').replace(/(<script\b[^>]*>)[\s\S]*?<\/script>/gi, '$1');
  for (const m of markup.matchAll(REFERENCE)) {
    const target = resolveRelative(base, (m[1] ?? m[2] ?? m[3] ?? '').trim());
    if (target !== null && !present.has(target) && !present.has(`${target.replace(/\/$/, '')}/index.html`.replace(/^\//, '')))
      missing.add(target);
  }
  const named = [...missing].sort(byCodeUnit);
  if (named.length === 0) return [];
  const shown = named.slice(0, MAX_NAMED_REFERENCES).join(', ');
  const more = named.length > MAX_NAMED_REFERENCES ? ` and ${named.length - MAX_NAMED_REFERENCES} more` : '';
  return [`${pagePath} refers to ${shown}${more}, not in this deploy: those requests will answer 404`];
}

/** A path in the deploy for a relative reference, or null for what is not one (URLs, anchors, root-relative paths, templates). */
function resolveRelative(base: string, ref: string): string | null {
  if (
    ref === '' ||
    ref.startsWith('#') ||
    ref.startsWith('/') ||
    ref.startsWith('?') ||
    /^[a-z][a-z0-9+.-]*:/i.test(ref) ||
    /[{}$<>`]/.test(ref)
  )
    return null;
  const clean = ref.replace(/[?#].*$/, '');
  if (clean === '' || clean.endsWith('/')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(clean);
  } catch {
    return null;
  }
  const parts: string[] = [];
  for (const part of (base + decoded).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  // Served as the composed form is (src/serve/resolve.ts), so a decomposed "é" in a link is found.
  return parts.length === 0 ? null : composedPath(parts.join('/'));
}

/** Paths that differ only in case: one name on a case-insensitive disk, two here. */
function caseCollisions(paths: string[]): string[] {
  const byLower = new Map<string, string[]>();
  for (const path of paths) {
    const key = path.toLowerCase();
    byLower.set(key, [...(byLower.get(key) ?? []), path]);
  }
  return [...byLower.values()]
    .filter((group) => group.length > 1)
    .map((group) => `${group.join(' and ')} differ only in case: links must match the case exactly here`);
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
