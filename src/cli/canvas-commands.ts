// `easel canvases`, `create`, `link`, `versions`, `rollback`, `unpublish`,
// `open`, `transfer`, `archive`, `restore`, `delete`: the management API for a signed-in person (src/cli/people-api.ts).
import { resolve } from 'node:path';
import { parseArgs, UsageError } from './args.ts';
import { ApiError } from './api-client.ts';
import { canvasIdOf, session, type Env, type Session } from './people-api.ts';
import { writeLink } from './project-link.ts';
import { formatBytes, type CliIO } from './progress.ts';
import { openInBrowser, runCommand } from './run.ts';
import { archive, remove, restore } from './canvas-lifecycle.ts';

export const CANVAS_USAGE = {
  canvases: 'Usage: easel canvases [--api <url>] [--json]   the canvases you own or that are shared with you',
  create: 'Usage: easel create <title> [--slug <slug>] [--link] [--api <url>] [--json]   a new canvas (--link: link this folder to it)',
  link: 'Usage: easel link <canvas id or slug> [--dir <site folder>] [--api <url>] [--json]   writes .easel.json here, so easel deploy needs no flags',
  versions: 'Usage: easel versions [--canvas <id or slug>] [--api <url>] [--json]   newest first; * marks the live one',
  rollback: 'Usage: easel rollback <version number> [--canvas <id or slug>] [--api <url>] [--json]',
  unpublish: 'Usage: easel unpublish [--canvas <id or slug>] [--api <url>] [--json]   takes the canvas offline (history kept)',
  open: 'Usage: easel open [--canvas <id or slug>] [--no-browser] [--api <url>]   the canvas in your browser',
  transfer:
    'Usage: easel transfer <canvas id or slug> <email> [--api <url>] [--json]   gives the canvas to another person of the instance (you stay as an editor)',
  archive:
    'Usage: easel archive <canvas id or slug> [--api <url>] [--json]   stops serving the canvas, keeping everything (easel restore brings it back)',
  restore:
    'Usage: easel restore <canvas id or slug> [--api <url>] [--json]   serves an archived canvas again (a backup: easel restore <file> --data-dir <dir>)',
  delete:
    'Usage: easel delete <canvas id or slug> [--yes] [--api <url>] [--json]   deletes the canvas for good; asks for its slug on a terminal unless --yes',
} as const;

export type CanvasCommand = keyof typeof CANVAS_USAGE;

export interface CanvasDeps {
  cwd: string;
  openUrl?: (url: string) => boolean;
  /** Asks the person at the terminal (easel delete's confirmation); absent when stdin is not a terminal. */
  ask?: (question: string) => Promise<string | null>;
}

interface VersionRow {
  number: number;
  current: boolean;
  /** Made with --preview: ready, never live unless rolled back to. */
  preview: boolean;
  createdAt: number;
  source: string;
  fileCount: number;
  totalBytes: number;
  releaseId: string | null;
  /** What its deploy warned of (the server keeps them with the version). */
  warnings: string[];
}

interface CanvasRow {
  id: string;
  slug: string;
  title: string;
  role: string;
  status: string;
  publicationState: string;
  url: string;
}

const COMMANDS: Record<CanvasCommand, (c: Ctx) => Promise<void>> = {
  archive: (c) => archive(c),
  restore: (c) => restore(c),
  delete: ({ deps, ...c }) => remove({ ...c, ...(deps.ask ? { ask: deps.ask } : {}) }),
  async canvases({ s, args, out }) {
    const { canvases } = await s.call<{ canvases: CanvasRow[] }>('GET', '/api/canvases');
    if (args.flags.has('--json')) return out.json({ canvases });
    if (canvases.length === 0) return out.text(`no canvases on ${s.base} yet: easel create <title>\n`);
    const rows = canvases.map((c) => [c.id, c.slug, c.role, c.status === 'active' ? c.publicationState : c.status, c.title]);
    out.text(table([['ID', 'SLUG', 'ROLE', 'STATE', 'TITLE'], ...rows]));
  },
  async create({ s, args, out, deps }) {
    const title = args.positional.join(' ').trim();
    if (!title) throw new UsageError('name the canvas: easel create "My dashboard"');
    const made = await s.call<CanvasRow & { apiKey: string }>('POST', '/api/canvases', {
      title,
      ...(args.values['--slug'] ? { slug: args.values['--slug'] } : {}),
    });
    const linked = args.flags.has('--link') ? writeLink(deps.cwd, { instance: s.base, canvasId: made.id, slug: made.slug }) : null;
    if (args.flags.has('--json')) return out.json({ ...made, linked });
    out.text(
      `created ${made.title} (${made.id}) at ${made.url}\n` +
        `deploy key (shown once; for CI as EASEL_CANVAS_KEY): ${made.apiKey}\n` +
        (linked ? `linked this folder (${linked}): easel deploy publishes it\n` : `next: easel link ${made.id}, then easel deploy\n`),
    );
  },
  async link({ s, args, out, deps }) {
    if (args.positional.length !== 1)
      throw new UsageError('name the canvas to link: easel link <canvas id or slug> (easel canvases lists them)');
    const id = await canvasIdOf(s, args.positional[0]);
    const canvas = await s.call<CanvasRow>('GET', `/api/canvases/${encodeURIComponent(id)}`);
    const dir = args.values['--dir'];
    const path = writeLink(deps.cwd, { instance: s.base, canvasId: canvas.id, slug: canvas.slug, ...(dir ? { dir } : {}) });
    if (args.flags.has('--json')) return out.json({ linked: path, canvas });
    out.text(
      `linked ${resolve(deps.cwd)} to ${canvas.title} (${canvas.slug}) on ${s.base}: easel deploy${dir ? ` publishes ${dir}/` : ' publishes this folder'}\n`,
    );
  },
  async versions({ s, args, out }) {
    const id = await canvasIdOf(s, args.values['--canvas']);
    const { versions } = await s.call<{ versions: VersionRow[] }>('GET', `/api/canvases/${encodeURIComponent(id)}/versions`);
    if (args.flags.has('--json')) return out.json({ versions });
    if (versions.length === 0) return out.text('no versions yet: easel deploy\n');
    const rows = versions.map((v) => [
      // The dashboard's words for a version made with --preview.
      `${v.current ? '*' : ' '}${v.number}${v.preview ? ' · preview' : ''}`,
      new Date(v.createdAt).toISOString().replace('T', ' ').slice(0, 19),
      v.source,
      `${v.fileCount} files, ${formatBytes(v.totalBytes)}`,
      v.releaseId ?? '',
      v.warnings.length > 0 ? String(v.warnings.length) : '',
    ]);
    out.text(table([['VERSION', 'CREATED (UTC)', 'SOURCE', 'SIZE', 'RELEASE', 'WARNINGS'], ...rows]));
    // A deploy from CI said its warnings to CI's log; here is where a person finds them again.
    const warned = versions.find((v) => v.warnings.length > 0);
    if (warned) {
      const shown = warned.warnings
        .slice(0, 3)
        .map((w) => `  ${w}\n`)
        .join('');
      const more = warned.warnings.length > 3 ? `  and ${warned.warnings.length - 3} more\n` : '';
      out.text(`version ${warned.number} warned:\n${shown}${more}(easel versions --json has every version's warnings)\n`);
    }
  },
  async rollback({ s, args, out }) {
    const version = Number(args.positional[0]);
    if (args.positional.length !== 1 || !Number.isInteger(version) || version < 1)
      throw new UsageError('name the version number to make live: easel rollback 3 (easel versions lists them)');
    const id = await canvasIdOf(s, args.values['--canvas']);
    const result = await s
      .call<{ url: string; version: number }>('POST', `/api/canvases/${encodeURIComponent(id)}/rollback`, { version })
      .catch((err: unknown) => {
        // The API's code for a missing version is the generic INVALID_PATH; the CLI names what is missing.
        if (err instanceof ApiError && err.code === 'INVALID_PATH')
          throw new ApiError('NOT_FOUND', `no version ${version} among the kept ones (easel versions lists them)`, 404, null);
        throw err;
      });
    if (args.flags.has('--json')) return out.json(result);
    out.text(`version ${result.version} is live again at ${result.url}\n`);
  },
  async unpublish({ s, args, out }) {
    const id = await canvasIdOf(s, args.values['--canvas']);
    const result = await s.call<{ url: string }>('POST', `/api/canvases/${encodeURIComponent(id)}/unpublish`);
    if (args.flags.has('--json')) return out.json(result);
    out.text(`unpublished: ${result.url} no longer answers (its versions are kept; easel rollback <n> brings one back)\n`);
  },
  async open({ s, args, out, deps }) {
    const id = await canvasIdOf(s, args.values['--canvas']);
    const canvas = await s.call<CanvasRow>('GET', `/api/canvases/${encodeURIComponent(id)}`);
    const opened = args.flags.has('--no-browser') ? false : (deps.openUrl ?? openInBrowser)(canvas.url);
    if (args.flags.has('--json')) return out.json({ url: canvas.url, opened });
    out.text(`${canvas.url}\n`);
  },
  async transfer({ s, args, out }) {
    const [canvas, email] = args.positional;
    if (args.positional.length !== 2 || !canvas || !email)
      throw new UsageError('name the canvas and its new owner: easel transfer <canvas id or slug> <email>');
    // An admin may give away a canvas that is not on their own list: an id the list does not know goes to the server as it is.
    const id = await canvasIdOf(s, canvas).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 'NOT_FOUND') return canvas;
      throw err;
    });
    const result = await s.call<CanvasRow>('PUT', `/api/canvases/${encodeURIComponent(id)}/owner`, { email });
    if (args.flags.has('--json')) return out.json(result);
    out.text(
      `${result.title} (${result.id}) now belongs to ${email}; you are ${result.role === 'editor' ? 'an editor' : `shown as ${result.role}`} on it\n`,
    );
  },
};

interface Ctx {
  s: Session;
  args: ReturnType<typeof parseArgs>;
  out: { text(t: string): void; json(v: unknown): void };
  deps: CanvasDeps;
}

export function canvasCommand(command: CanvasCommand, argv: string[], env: Env, io: CliIO, deps: CanvasDeps): Promise<number> {
  const usage = CANVAS_USAGE[command];
  return runCommand(command, usage, argv, io, async () => {
    const args = parseArgs(argv, {
      values: ['--api', '--canvas', '--slug', '--dir'],
      flags: ['--link', '--no-browser', ...(command === 'delete' ? ['--yes'] : [])],
    });
    if (args.help) return io.stdout(usage + '\n');
    const s = session(args.values['--api'], env, deps.cwd);
    await COMMANDS[command]({ s, args, deps, out: { text: io.stdout, json: (v) => io.stdout(JSON.stringify(v, null, 2) + '\n') } });
  });
}

/** Left-aligned columns, two spaces apart. */
function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}
