import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { embeddedUnder, isCompiled } from '../embedded.ts';

/** The documentation's Markdown in the working tree (from source). */
export const DOCS_DIR = join(import.meta.dir, '../../docs');

/** docs/README.md is the index, served at /docs; the other pages at /docs/<name>. */
export const INDEX_PAGE = 'README';

/**
 * Every page's Markdown by name (`operate` for docs/operate.md). Only the
 * top level of docs/: drafts in docs/drafts/ wait to be folded in and are
 * never served. A fixed map, read once: a request can only name one of these.
 */
export function docPages(dir: string = DOCS_DIR): Map<string, string> {
  const pages = new Map<string, string>();
  if (isCompiled()) {
    for (const [name, path] of embeddedUnder('docs/')) {
      const page = pageName(name.slice('docs/'.length));
      if (page) pages.set(page, readFileSync(path, 'utf8'));
    }
    return pages;
  }
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return pages;
  }
  for (const file of entries) {
    const page = pageName(file);
    if (page) pages.set(page, readFileSync(join(dir, file), 'utf8'));
  }
  return pages;
}

/** `operate.md` → `operate`; null for anything that is not a top-level page. */
export function pageName(file: string): string | null {
  const match = /^([a-z0-9][a-z0-9-]*|README)\.md$/.exec(file);
  return match ? match[1]! : null;
}
