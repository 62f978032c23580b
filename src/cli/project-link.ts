// `.easel.json`, written by `easel link`: which instance and canvas a folder
// publishes to (and optionally which subfolder is the site), so commands run
// in it (or below it) need no flags. It holds no secret: commit it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ApiError } from './api-client.ts';

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

/**
 * A refusal of the canvas a folder's link names, told where the id came from:
 * a canvas deleted (or taken away) since `easel link` otherwise reads as an
 * unexplained "canvas not found" in a folder that names no canvas.
 */
export function withLinkHint(err: unknown, linked: { folder: string; link: ProjectLink } | null, canvasId: string): unknown {
  if (!(err instanceof ApiError) || linked === null || linked.link.canvasId !== canvasId) return err;
  if (err.code !== 'NOT_FOUND') return err;
  const path = join(linked.folder, LINK_FILE);
  const hint = `${path} links this folder to canvas ${canvasId}, which is gone or not yours to manage: run easel link <canvas> to link it to another`;
  return new ApiError(err.code, `${err.message} (${hint})`, err.status, err.body);
}
