// Non-fatal deploy warnings (spec "DeployResult"): text/plain downgrades, a
// possible canvas key in a text file (ZIP deploys; the staged path only logs
// it, spec "Stage rules" 3), a missing root index.html — and Easel's own for
// the usual mistakes: everything inside one wrapping folder (`zip -r site.zip
// mysite`), files the root page references that are not in the deploy, links
// from the host's root to files of a canvas served below it (a build made
// for a site of its own, such as Vite's default `base: '/'`), a root page
// that loads TypeScript or JSX source (a project before its build) or
// scripts, styles and frames over plain HTTP on an https canvas (mixed
// content), a whole Node project with its node_modules/, and paths that
// differ only in case.
import type { BlobStore } from '../blobs/store.ts';
import { composedPath } from '../canvases/file-path.ts';
import { isServedAsText } from './mime.ts';
import { nodeProjectFolder } from './project-folder.ts';

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
export function deployWarnings(
  files: Array<{ path: string }>,
  opts: {
    keyLintPaths: string[];
    rootPage?: string | null;
    /** The canvas's address (canvasUrl): whether it is below its host's root (path mode), and whether it is https. */
    canvasUrl?: string;
  },
): string[] {
  const paths = files.map((f) => f.path).sort(byCodeUnit);
  const out: string[] = [];
  for (const path of paths) if (isServedAsText(path)) out.push(`${path} will be served as text/plain`);
  for (const path of [...new Set(opts.keyLintPaths)].sort(byCodeUnit)) out.push(`${path} may contain a canvas API key`);
  if (!servesRoot(paths)) out.push(NO_INDEX_WARNING);
  const wrapper = wrappingFolder(paths);
  const root = rootPagePath(paths);
  if (wrapper !== null) {
    // The only HTML file is served at the root (spec): the page shows, and every file it links to is looked for beside the root.
    const where =
      root === null
        ? 'so its pages are not at the canvas root'
        : `so its one page, ${root}, is served at the canvas root without the files it links to (they stay under ${wrapper}/)`;
    out.push(
      `everything is inside the folder "${wrapper}/", ${where}: deploy the folder's contents instead (zip from inside it: cd ${wrapper} && zip -r ../site.zip .; or easel deploy ${wrapper})`,
    );
  }
  if (root !== null && opts.rootPage) {
    const present = new Set(paths);
    const { markup, scripts } = scanPage(opts.rootPage);
    const refs = referencesIn(markup);
    const at = opts.canvasUrl ? new URL(opts.canvasUrl) : null;
    // Inside a wrapping folder every link misses: the warning above says why once.
    if (wrapper === null) out.push(...missingReferences(root, refs, present));
    out.push(...unbuiltScripts(root, scripts));
    if (at && at.pathname !== '/') out.push(...fromHostRoot(root, refs, present, at.pathname));
    if (at?.protocol === 'https:') out.push(...mixedContent(root, scripts, markup));
  }
  out.push(...caseCollisions(paths));
  const project = nodeProjectFolder((p) => paths.includes(p) || paths.some((q) => q.startsWith(`${p}/`)));
  if (project) {
    const dependencies = paths.filter((p) => p.startsWith('node_modules/')).length;
    out.push(
      `this deploy is ${project.reason}: ${dependencies} file(s) of node_modules/ are published with it; ` +
        (project.output ? `deploy the contents of ${project.output}/ instead` : 'build it and deploy the folder the build writes'),
    );
  }
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

/**
 * A page's markup (comments and scripts' bodies are not), and the attribute
 * text of each of its script tags. A scan from left to right that looks for
 * each kind of thing at most once per place: the root page is the deployer's
 * text, up to 1 MB, and the regular expressions this replaces took quadratic
 * time on an unclosed comment repeated (1.5 s for 100 KB of "<!--").
 */
function scanPage(html: string): { markup: string; scripts: string[] } {
  const lower = html.toLowerCase();
  const scripts: string[] = [];
  let markup = '';
  let at = 0;
  let comment = -2;
  let script = -2;
  while (at < html.length) {
    if (comment !== -1 && comment < at) comment = lower.indexOf('<!--', at);
    if (script !== -1 && script < at) script = lower.indexOf('<script', at);
    if (comment < 0 && script < 0) break;
    if (comment >= 0 && (script < 0 || comment < script)) {
      markup += html.slice(at, comment);
      const end = lower.indexOf('-->', comment + 4);
      // An unclosed comment runs to the end of the page.
      at = end < 0 ? html.length : end + 3;
      continue;
    }
    const after = lower.charCodeAt(script + 7);
    const tagEnd = lower.indexOf('>', script);
    // `<scripts>` or a tag never closed: text, not a script.
    if (/[a-z0-9-]/.test(String.fromCharCode(after)) || tagEnd < 0) {
      markup += html.slice(at, script + 7);
      at = script + 7;
      continue;
    }
    markup += html.slice(at, tagEnd + 1);
    scripts.push(html.slice(script + 7, tagEnd));
    const close = lower.indexOf('</script', tagEnd + 1);
    // The script's body runs to its end tag, or to the end of the page.
    at = close < 0 ? html.length : close;
  }
  if (at < html.length) markup += html.slice(at);
  return { markup, scripts };
}

/** The `src` and `href` values of a page's markup. */
function referencesIn(markup: string): string[] {
  return [...markup.matchAll(REFERENCE)].map((m) => (m[1] ?? m[2] ?? m[3] ?? '').trim());
}

/** One attribute's value in a tag's attribute text, or null. */
function attribute(attributes: string, name: string): string | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>"']+))`, 'i').exec(attributes);
  return m ? (m[1] ?? m[2] ?? m[3] ?? '').trim() : null;
}

/** Source a build tool compiles, which a browser does not run itself. */
const UNBUILT_SOURCE = /\.(?:tsx?|mts|cts|jsx|vue|svelte)$/i;
/** Script types the browser runs itself (a `text/babel` script is compiled in the page, so JSX there is fine). */
const RUN_BY_BROWSER = new Set(['', 'module', 'text/javascript', 'application/javascript']);

/**
 * Scripts of the root page that the browser would run as they are but that
 * are a build tool's source (`<script type="module" src="/src/main.tsx">`, as
 * in every Vite project's index.html): a project deployed before its build.
 */
function unbuiltScripts(pagePath: string, scriptTags: string[]): string[] {
  const sources = new Set<string>();
  for (const tag of scriptTags) {
    const src = attribute(tag, 'src')?.replace(/[?#].*$/, '');
    const type = (attribute(tag, 'type') ?? '').toLowerCase();
    // A URL is another server's business (some CDNs compile TypeScript): only the deploy's own files count.
    if (src && UNBUILT_SOURCE.test(src) && RUN_BY_BROWSER.has(type) && !/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(src)) sources.add(src);
  }
  const named = listed([...sources]);
  if (named === null) return [];
  return [
    `${pagePath} loads ${named}, source the browser does not run (TypeScript, JSX, Vue or Svelte): build the app (npm run build) and deploy the folder the build writes (often dist/)`,
  ];
}

/**
 * Scripts, stylesheets and frames the root page loads over plain HTTP: on an
 * https canvas browsers block them (mixed content), and the page loads
 * without them. Images and media are upgraded to https by browsers, so only
 * these are named.
 */
function mixedContent(pagePath: string, scriptTags: string[], markup: string): string[] {
  const blocked = new Set<string>();
  const plain = (url: string | null) => url !== null && /^http:\/\//i.test(url) && blocked.add(url);
  for (const tag of scriptTags) plain(attribute(tag, 'src'));
  for (const { name, attributes } of tagsIn(markup, ['link', 'iframe'])) {
    if (name === 'iframe') plain(attribute(attributes, 'src'));
    else if (/(^|\s)stylesheet(\s|$)/i.test(attribute(attributes, 'rel') ?? '')) plain(attribute(attributes, 'href'));
  }
  const named = listed([...blocked]);
  if (named === null) return [];
  return [
    `${pagePath} loads ${named} over plain HTTP: browsers block plain-HTTP scripts, styles and frames on this canvas's https address (mixed content); use https:// (or keep a copy in the deploy)`,
  ];
}

/**
 * The tags named `names` in a page's markup, with their attribute text. In
 * one pass: where the next `>` is, once found, serves every tag before it
 * (a page of unclosed tags must not be read once per tag).
 */
function tagsIn(markup: string, names: string[]): Array<{ name: string; attributes: string }> {
  const lower = markup.toLowerCase();
  const out: Array<{ name: string; attributes: string }> = [];
  let gt = -2;
  for (let lt = lower.indexOf('<'); lt >= 0; lt = lower.indexOf('<', lt + 1)) {
    const name = names.find((n) => lower.startsWith(n, lt + 1) && !/[a-z0-9-]/.test(lower[lt + 1 + n.length] ?? ''));
    if (!name) continue;
    if (gt !== -1 && gt < lt) gt = lower.indexOf('>', lt);
    if (gt < 0) break;
    out.push({ name, attributes: markup.slice(lt + 1 + name.length, gt) });
  }
  return out;
}

/** Relative `src`/`href` targets of the root page that the deploy does not hold. */
/**
 * The root page's relative links to files the deploy lacks. They are read
 * where the page is served, the canvas root, also when the page is a folder's
 * only HTML file (`docs/page.html`): the browser resolves `style.css` there
 * as `style.css`, not `docs/style.css`.
 */
function missingReferences(pagePath: string, refs: string[], present: Set<string>): string[] {
  const missing = new Set<string>();
  for (const ref of refs) {
    const target = resolveFromRoot(ref);
    if (target !== null && !holds(present, target)) missing.add(target);
  }
  const named = listed([...missing]);
  const page = pagePath.includes('/') ? `${pagePath}, served at the canvas root,` : pagePath;
  return named === null ? [] : [`${page} refers to ${named}, not in this deploy: those requests will answer 404`];
}

/**
 * Root-relative links (`/assets/app.js`) to files the deploy holds, on a
 * canvas served below the host's root: the browser asks the host's root for
 * them, which is not the canvas, and the page loads without its scripts and
 * styles. What a build made for a site of its own does (Vite's and Create
 * React App's defaults).
 */
function fromHostRoot(pagePath: string, refs: string[], present: Set<string>, servedBelow: string): string[] {
  const rooted = new Set<string>();
  for (const ref of refs) {
    // Unbuilt source is a build's business (unbuiltScripts), not a link to fix.
    if (!ref.startsWith('/') || ref.startsWith('//') || UNBUILT_SOURCE.test(ref.replace(/[?#].*$/, ''))) continue;
    const target = resolveFromRoot(ref.slice(1));
    if (target !== null && holds(present, target)) rooted.add(target);
  }
  const relative = [...rooted].sort(byCodeUnit);
  const named = listed(relative.map((p) => `/${p}`));
  if (named === null) return [];
  return [
    `${pagePath} links to ${named} from the host's root, but this canvas is served under ${servedBelow}: ` +
      `the browser will not find them there. Make the links relative${pagePath.includes('/') ? '' : ` (${relative[0]})`}, e.g. with Vite's base: './' or Create React App's "homepage": "."`,
  ];
}

/** Whether the deploy holds `target`, as a file or as a folder's index.html. */
function holds(present: Set<string>, target: string): boolean {
  return present.has(target) || present.has(`${target.replace(/\/$/, '')}/index.html`.replace(/^\//, ''));
}

/** Up to five names, then how many more; null for none. */
function listed(names: string[]): string | null {
  const sorted = [...names].sort(byCodeUnit);
  if (sorted.length === 0) return null;
  const more = sorted.length > MAX_NAMED_REFERENCES ? ` and ${sorted.length - MAX_NAMED_REFERENCES} more` : '';
  return sorted.slice(0, MAX_NAMED_REFERENCES).join(', ') + more;
}

/** The path in the deploy a relative reference names from the canvas root, or null for what is not one (URLs, anchors, root-relative paths, templates). */
function resolveFromRoot(ref: string): string | null {
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
  for (const part of decoded.split('/')) {
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
