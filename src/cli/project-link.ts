// `.easel.json`, written by `easel link`: which instance and canvas a folder
// publishes to (and optionally which subfolder is the site), so commands run
// in it (or below it) need no flags. It holds no secret: commit it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const LINK_FILE = '.easel.json';

export interface ProjectLink {
  instance: string;
  canvasId: string;
  slug?: string;
  /** The site folder, relative to the link file (default: the folder itself). */
  dir?: string;
}

/** The nearest `.easel.json` from `cwd` upwards, with the folder it is in. */
export function findLink(cwd: string): { folder: string; link: ProjectLink } | null {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const path = join(dir, LINK_FILE);
    if (existsSync(path)) {
      let raw: Partial<ProjectLink>;
      try {
        raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<ProjectLink>;
      } catch {
        throw new Error(`${path} is not valid JSON: fix it or run easel link again`);
      }
      if (typeof raw.instance !== 'string' || typeof raw.canvasId !== 'string')
        throw new Error(`${path} lacks "instance" or "canvasId": run easel link again`);
      return { folder: dir, link: raw as ProjectLink };
    }
    if (dirname(dir) === dir) return null;
  }
}

export function writeLink(folder: string, link: ProjectLink): string {
  const path = join(folder, LINK_FILE);
  writeFileSync(path, JSON.stringify(link, null, 2) + '\n');
  return path;
}
