// `easel data export <kv | collection NAME | submissions NAME | files>`: a
// canvas's data as the export routes give it (GET /api/canvases/{id}/data/…),
// streamed a chunk at a time to --out or stdout, never held whole. A file is
// written beside its name and renamed once the whole export has arrived, so a
// failed export leaves no half file behind.
import { rmSync, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiError } from './api-client.ts';
import { parseArgs, UsageError } from './args.ts';
import { canvasIdOf, session, type Env } from './people-api.ts';
import { formatBytes, type CliIO } from './progress.ts';
import { runCommand } from './run.ts';

export const DATA_USAGE = `Usage: easel data export <kv | collection NAME | submissions NAME | files> [--format csv|ndjson|json] [--out FILE]
       easel data export files --zip [--out FILE.zip]
  [--canvas <id or slug>] [--api <url>]   the linked canvas by default; stdout without --out`;

const FORMATS = new Set(['csv', 'ndjson', 'json']);

export interface DataDeps {
  cwd: string;
  /** Where an export without --out goes (the process's stdout). */
  stdoutSink?: () => { write(chunk: Uint8Array): unknown; flush(): unknown; end?(): unknown };
}

/** The export route's path below /api/canvases/{id}/data, from the positionals and flags. */
function exportPath(positional: string[], format: string | undefined, zip: boolean): string {
  const [kind, name, ...rest] = positional;
  const named = kind === 'collection' || kind === 'submissions';
  if (!kind || !['kv', 'collection', 'submissions', 'files'].includes(kind))
    throw new UsageError('export what? kv, collection NAME, submissions NAME or files');
  if (named ? !name || rest.length > 0 : name !== undefined)
    throw new UsageError(named ? `name the ${kind === 'collection' ? 'collection' : 'submissions collection'}` : `${kind} takes no name`);
  if (format !== undefined && !FORMATS.has(format)) throw new UsageError('--format is csv, ndjson or json');
  if (zip) {
    if (kind !== 'files') throw new UsageError('--zip exports the files themselves: easel data export files --zip');
    if (format !== undefined) throw new UsageError('--zip takes no --format');
    return '/files.zip';
  }
  const path =
    kind === 'kv'
      ? '/kv'
      : kind === 'files'
        ? '/files'
        : `/${kind === 'collection' ? 'collections' : 'submissions'}/${encodeURIComponent(name!)}`;
  return format ? `${path}?format=${format}` : path;
}

export function dataCommand(argv: string[], env: Env, io: CliIO, deps: DataDeps): Promise<number> {
  return runCommand('data', DATA_USAGE, argv, io, async () => {
    const args = parseArgs(argv, { values: ['--api', '--canvas', '--format', '--out'], flags: ['--zip'] });
    if (args.help) return io.stdout(DATA_USAGE + '\n');
    const [verb, ...positional] = args.positional;
    if (verb !== 'export') throw new UsageError(verb ? `unknown data command ${JSON.stringify(verb)}` : 'easel data export …');
    const path = exportPath(positional, args.values['--format'], args.flags.has('--zip'));
    const s = session(args.values['--api'], env, deps.cwd);
    const id = await canvasIdOf(s, args.values['--canvas']);
    const res = await s.fetch('GET', `/api/canvases/${encodeURIComponent(id)}/data${path}`);
    const out = args.values['--out'];
    const bytes = out ? await toFile(res, resolve(deps.cwd, out)) : await toSink(res, (deps.stdoutSink ?? stdoutSink)());
    if (out) io.stderr(`exported ${formatBytes(bytes)} to ${out}\n`);
  });
}

async function toFile(res: Response, path: string): Promise<number> {
  const partial = `${path}.${process.pid}.part`;
  const writer = Bun.file(partial).writer();
  try {
    const bytes = await toSink(res, writer);
    renameSync(partial, path);
    return bytes;
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

async function toSink(res: Response, sink: ReturnType<NonNullable<DataDeps['stdoutSink']>>): Promise<number> {
  let bytes = 0;
  try {
    const reader = res.body?.getReader();
    for (let next = await reader?.read(); next && !next.done; next = await reader!.read()) {
      const chunk = next.value;
      sink.write(chunk);
      await sink.flush();
      bytes += chunk.byteLength;
    }
  } catch (err) {
    throw new ApiError(
      'NETWORK_ERROR',
      `the export was cut off after ${formatBytes(bytes)} (${err instanceof Error ? err.message : err})`,
      0,
      null,
    );
  } finally {
    await sink.end?.();
  }
  return bytes;
}

function stdoutSink() {
  const writer = Bun.stdout.writer();
  // Bun.stdout's writer must not be ended: the process still prints after it.
  return { write: (chunk: Uint8Array) => writer.write(chunk), flush: () => writer.flush() };
}
