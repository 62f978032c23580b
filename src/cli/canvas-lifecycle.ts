// `easel archive <canvas>`, `easel restore <canvas>`, `easel delete <canvas>
// [--yes]`: the canvas's danger zone from the command line (owner or admin).
// Delete asks for the slug on a terminal; elsewhere it needs --yes, so a
// script never deletes by accident.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError, type ParsedArgs } from './args.ts';
import { canvasIdOf, type Session } from './people-api.ts';

export interface LifecycleCtx {
  s: Session;
  args: ParsedArgs;
  out: { text(t: string): void; json(v: unknown): void };
  /** Reads one answer from the person at a terminal; absent when stdin is not a terminal. */
  ask?: (question: string) => Promise<string | null>;
}

interface CanvasRow {
  id: string;
  slug: string;
  title: string;
  status: string;
  /** "published" or "draft" (nothing live). */
  publicationState: string;
  url: string;
}

function named(args: ParsedArgs, command: string): string {
  if (args.positional.length !== 1)
    throw new UsageError(`name the canvas: easel ${command} <canvas id or slug> (easel canvases lists them)`);
  return args.positional[0]!;
}

async function lookUp(s: Session, canvas: string): Promise<CanvasRow> {
  const id = await canvasIdOf(s, canvas);
  return s.call<CanvasRow>('GET', `/api/canvases/${encodeURIComponent(id)}`);
}

export async function archive({ s, args, out }: LifecycleCtx): Promise<void> {
  const c = await lookUp(s, named(args, 'archive'));
  const result = await s.call<CanvasRow>('POST', `/api/canvases/${encodeURIComponent(c.id)}/archive`);
  if (args.flags.has('--json')) return out.json(result);
  out.text(`archived ${result.title} (${result.slug}): it no longer answers; easel restore ${result.slug} brings it back\n`);
}

export async function restore({ s, args, out }: LifecycleCtx): Promise<void> {
  const c = await lookUp(s, named(args, 'restore'));
  const result = await s.call<CanvasRow>('POST', `/api/canvases/${encodeURIComponent(c.id)}/restore`);
  if (args.flags.has('--json')) return out.json(result);
  out.text(
    result.publicationState === 'published'
      ? `restored ${result.title}: it answers again at ${result.url}\n`
      : `restored ${result.title}: nothing is published on it yet (easel deploy gives it its page at ${result.url})\n`,
  );
}

export async function remove({ s, args, out, ask }: LifecycleCtx): Promise<void> {
  const c = await lookUp(s, named(args, 'delete'));
  if (!args.flags.has('--yes')) {
    if (!ask) throw new UsageError(`deleting ${c.slug} cannot be undone: pass --yes to confirm when not at a terminal`);
    const typed = await ask(
      `Delete ${c.title} (${c.url}) with its versions and data? This cannot be undone. Type its slug (${c.slug}) to confirm: `,
    );
    if ((typed ?? '').trim() !== c.slug) throw new UsageError(`not deleted: the slug typed was not ${c.slug}`);
  }
  await s.call('DELETE', `/api/canvases/${encodeURIComponent(c.id)}`);
  if (args.flags.has('--json')) return out.json({ deleted: { id: c.id, slug: c.slug } });
  out.text(`deleted ${c.title} (${c.slug}); its address no longer answers and the slug is free again\n`);
}

/**
 * `easel restore` also restores a backup (src/cli/backup.ts). It is the
 * canvas's when its one argument could be a slug or id (letters, digits,
 * hyphens), is not a file or folder here, and no --data-dir is given.
 */
export function restoresACanvas(argv: string[], cwd: string): boolean {
  const positional = argv.filter((a) => !a.startsWith('-'));
  if (argv.some((a) => a === '--data-dir' || a.startsWith('--data-dir='))) return false;
  if (positional.length !== 1) return false;
  const [target] = positional as [string];
  return /^[A-Za-z0-9-]+$/.test(target) && !existsSync(resolve(cwd, target));
}
