import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { embeddedUnder, isCompiled } from '../embedded.ts';
import { contentTypeForExtension, extensionOf } from '../http/mime.ts';

/** The dashboard's files in the working tree (from source). */
export const PUBLIC_DIR = join(import.meta.dir, '../../public');

export interface StaticFile {
  path: string;
  type: string;
}

export function contentTypeOf(name: string): string {
  return contentTypeForExtension(extensionOf(name)) ?? 'application/octet-stream';
}

/**
 * Every dashboard file by its name relative to public/ (`index.html`,
 * `app.js`). A fixed map, built once: a request can only ever name one of
 * these, so there is no path to traverse.
 */
export function dashboardFiles(dir: string = PUBLIC_DIR): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (isCompiled()) {
    for (const [name, path] of embeddedUnder('public/')) {
      const rel = name.slice('public/'.length);
      files.set(rel, { path, type: contentTypeOf(rel) });
    }
    return files;
  }
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const rel = relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (rel.split('/').some((part) => part.startsWith('.'))) continue;
    files.set(rel, { path: join(dir, rel), type: contentTypeOf(rel) });
  }
  return files;
}
