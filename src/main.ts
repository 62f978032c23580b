#!/usr/bin/env bun
// The only file that reads process.env and argv.
import { RemoteBlobsAtStart } from './blobs/remote-start.ts';
import { RedisUnavailableAtStart } from './runtime/realtime/redis/start-error.ts';
import { resolve } from 'node:path';
import { OidcStartError } from './auth/oidc.ts';
import { closestName, ConfigError, loadConfig, unknownVariables } from './config.ts';
import { DataDirLockedError, DataDirNotADirectoryError, lockDataDir } from './db/data-dir-lock.ts';
import { createCore } from './foundation.ts';
import { VERSION } from './context.ts';
import { NewerSchemaError, SCHEMA_VERSION } from './db/migrate.ts';
import { DatabaseUnavailable } from './db/open-storage.ts';
import { ClusterStartError } from './cluster/node-registry.ts';
// The server (and with it every route) loads only for `serve`: `easel deploy` starts ~90 ms sooner.
import type { RunningServer } from './server/listener.ts';
import type { CliIO } from './cli/progress.ts';
import { startLine } from './start-line.ts';
import { buildInfo } from './build-info.ts';
import { parseArgs, UsageError } from './cli/args.ts';

const HELP = `easel ${VERSION} — self-hosted canvas publishing

Usage:
  easel [serve] [--data-dir <dir>]
                     start the server (configuration from EASEL_* variables)
  easel login [<instance URL>] [--with-token]
                     sign the CLI in through your browser (or a pasted token)
  easel logout | whoami
  easel canvases | create <title> [--link] | link <canvas>
                     list, create, and link this folder to a canvas (.easel.json)
  easel deploy [<dir or .zip>] [--canvas <id>] [--release-id <id>] [--expect-token <token>] [--preview] [--force] [--json]
                     publish a site folder or ZIP as yourself, or with EASEL_CANVAS_KEY (CI);
                     --preview makes a version that is not live, served at its preview address
  easel versions | rollback <n> | unpublish | open [--canvas <id or slug>]
  easel transfer <canvas> <email>
                     give a canvas to another person of the instance (you stay on it as an editor)
  easel archive <canvas> | restore <canvas> | delete <canvas> [--yes]
                     stop serving a canvas (kept), serve it again, or delete it (asks for its slug)
  easel data export <kv | collection NAME | submissions NAME | files> [--format csv|ndjson|json] [--out FILE]
                     a canvas's data, streamed to a file or stdout (files --zip: the files themselves)
  easel dev [<dir>] [--canvas <id or slug>] [--port <n>]
                     serve a folder as the canvas, with its runtime API, reloading on changes
  easel backup <file.tar or folder> [--data-dir <dir>]
                     an online, consistent backup while the server runs (easel backup --help)
  easel restore <backup> [--data-dir <dir>]
                     restore a backup into a new or empty data directory
  easel migrate [--data-dir <dir>]
                     apply this release's database migrations and exit (refused while a server runs)
  easel copy-data --from sqlite:<dir> --to postgres://…
                     move a stopped embedded instance onto Postgres (and its blobs onto S3 with EASEL_BLOB_URL)
  easel version [--json]
                     the version, commit, build date and platform, and the schema version
  easel help         this text

Every command takes --help and --json; exit codes: 0 done, 1 refused or unreachable, 2 usage.
Configuration: see the README (EASEL_DATA_DIR, EASEL_PORT, EASEL_AUTH_MODE, …).`;

/** Every subcommand, for "did you mean" after a typo. */
const COMMANDS = [
  'serve',
  'login',
  'logout',
  'whoami',
  'canvases',
  'create',
  'link',
  'deploy',
  'versions',
  'rollback',
  'unpublish',
  'open',
  'transfer',
  'archive',
  'delete',
  'dev',
  'backup',
  'restore',
  'migrate',
  'copy-data',
  'version',
  'help',
];

function fail(message: string, code: number): never {
  process.stderr.write(`easel: ${message}\n`);
  process.exit(code);
}

const SERVE_USAGE = `Usage: easel [serve] [--data-dir <dir>]

  Starts the server. Its configuration is the EASEL_* variables (docs/configuration.md);
  --data-dir <dir> is EASEL_DATA_DIR (default ./data).`;

async function serve(argv: string[]): Promise<void> {
  // Flags are read, never ignored: \`serve --data-dir x\` started an empty instance in ./data, and \`serve --help\` a server.
  let args;
  try {
    args = parseArgs(argv, { values: ['--data-dir'] });
    if (args.flags.size > 0) throw new UsageError(`unknown option ${[...args.flags][0]}`);
    if (args.positional.length > 0) throw new UsageError(`serve takes no ${JSON.stringify(args.positional[0])}`);
  } catch (err) {
    if (err instanceof UsageError) fail(`serve: ${err.message}\n\n${SERVE_USAGE}`, 2);
    throw err;
  }
  if (args.help) {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return;
  }
  const dataDirFlag = args.values['--data-dir'];
  const { startServer } = await import('./server/listener.ts');
  let config;
  try {
    config = loadConfig(dataDirFlag === undefined ? process.env : { ...process.env, EASEL_DATA_DIR: dataDirFlag });
  } catch (err) {
    if (err instanceof ConfigError) fail(`invalid configuration: ${err.message}`, 2);
    throw err;
  }
  const dataDir = resolve(config.dataDir);
  try {
    const lock = lockDataDir(dataDir);
    process.on('exit', () => lock.release());
  } catch (err) {
    if (err instanceof DataDirLockedError) fail(`refusing to start: ${err.message} (${dataDir}); stop it first`, 2);
    if (err instanceof DataDirNotADirectoryError) fail(`invalid configuration: EASEL_DATA_DIR: ${err.message}`, 2);
    fail(`cannot use the data directory ${dataDir}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  let ctx;
  try {
    ctx = await createCore(config);
  } catch (err) {
    if (err instanceof NewerSchemaError) fail(`refusing to start: ${err.message}`, 2);
    if (err instanceof DatabaseUnavailable) fail(err.message, 1);
    fail(`cannot open the data directory ${dataDir}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  const { hostLabelConflict } = await import('./canvases/host-label-conflict.ts');
  const conflict = await hostLabelConflict(ctx);
  if (conflict !== null) {
    await ctx.sql.close();
    fail(`refusing to start: ${conflict}`, 2);
  }
  // Signals are wired before the listener opens, so a stop that arrives right
  // after the start line is always graceful.
  let running: RunningServer | undefined;
  let signals = 0;
  const stop = (signal: string) => {
    // A second Ctrl-C means "now": skip the drain.
    if (++signals > 1) fail(`${signal} again: exiting without waiting for in-flight requests`, 130);
    ctx.log.info('shutting down', { signal });
    (running ? running.shutdown() : ctx.sql.close()).then(
      () => process.exit(0),
      (err) => fail(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`, 1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  try {
    running = await startServer(ctx);
  } catch (err) {
    await ctx.sql.close().catch(() => {});
    if (err instanceof ClusterStartError) fail(`refusing to start: ${err.message}`, 2);
    // A provider, a bucket or Redis that does not answer at start is an outage more often than a typo:
    // exit 1, which systemd retries (exit 2, a configuration error, it does not), so Easel comes back with them.
    if (err instanceof OidcStartError || err instanceof RemoteBlobsAtStart || err instanceof RedisUnavailableAtStart)
      fail(`refusing to start: ${err.message}`, 1);
    fail(`cannot listen on ${config.host}:${config.port}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  // startServer filled in the real port when EASEL_PORT=0.
  process.stdout.write(`${startLine(VERSION, running.url, config, dataDir, ctx.blobs.remote?.location ?? null)}\n`);
  if (config.authMode === 'dev')
    process.stderr.write('easel: warning: dev sign-in is on: anyone can sign in as anyone. Use EASEL_AUTH_MODE=proxy in production.\n');
  for (const { name, closest } of unknownVariables(process.env))
    process.stderr.write(`easel: warning: ${name} is not an Easel setting and is ignored${closest ? ` (did you mean ${closest}?)` : ''}\n`);
  if (['0.0.0.0', '::', '[::]'].includes(config.host) && !process.env.EASEL_BASE_URL)
    process.stderr.write(
      `easel: warning: listening on every interface but EASEL_BASE_URL is not set: links and redirects say ${config.baseUrl}; set it to the address people use\n`,
    );
  if (config.cookieDomain !== null)
    process.stderr.write(
      'easel: warning: EASEL_COOKIE_DOMAIN is ignored: every session cookie is host-only, and canvas hosts get their own through a sign-in handoff.\n',
    );
  if (config.urlMode === 'path' && config.authMode !== 'dev')
    process.stderr.write(
      "easel: note: path mode: every canvas shares the dashboard's origin, so canvas authors must be trusted by everyone who opens their canvases (EASEL_URL_MODE=subdomain isolates them).\n",
    );
}

/** A question to the person at the terminal (easel delete's confirmation); nothing when stdin is not a terminal. */
function terminalAsk(): { ask?: (question: string) => Promise<string | null> } {
  if (process.stdin.isTTY !== true) return {};
  return {
    ask: (question) => {
      process.stderr.write(question);
      // prompt-free: one line from stdin (Bun's console is an async iterator of lines).
      return (async () => {
        for await (const line of console) return line;
        return null;
      })();
    },
  };
}

function cliIO(): CliIO {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    isTTY: process.stderr.isTTY === true,
  };
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve'] = argv;
  switch (command) {
    case 'serve':
      return serve(argv.slice(1));
    case 'deploy': {
      const { deployCommand } = await import('./cli/deploy.ts');
      process.exitCode = await deployCommand(argv.slice(1), process.env, cliIO());
      return;
    }
    case 'login':
    case 'logout':
    case 'whoami': {
      const { loginCommand, logoutCommand, whoamiCommand } = await import('./cli/account-commands.ts');
      const run = { login: loginCommand, logout: logoutCommand, whoami: whoamiCommand }[command];
      process.exitCode = await run(argv.slice(1), process.env, cliIO(), {
        cwd: process.cwd(),
        readStdin: () => new Response(Bun.stdin.stream()).text(),
      });
      return;
    }
    case 'canvases':
    case 'create':
    case 'link':
    case 'versions':
    case 'rollback':
    case 'unpublish':
    case 'open':
    case 'transfer':
    case 'archive':
    case 'delete': {
      const { canvasCommand } = await import('./cli/canvas-commands.ts');
      process.exitCode = await canvasCommand(command, argv.slice(1), process.env, cliIO(), { cwd: process.cwd(), ...terminalAsk() });
      return;
    }
    case 'data': {
      const { dataCommand } = await import('./cli/data-export.ts');
      process.exitCode = await dataCommand(argv.slice(1), process.env, cliIO(), { cwd: process.cwd() });
      return;
    }
    case 'dev': {
      const { devCommand } = await import('./cli/dev.ts');
      const until = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      process.exitCode = await devCommand(argv.slice(1), process.env, cliIO(), { cwd: process.cwd(), until });
      process.exit();
    }
    case 'restore': {
      // `easel restore <canvas>` serves an archived canvas again; a file, a folder or --data-dir is a backup.
      const { restoresACanvas } = await import('./cli/canvas-lifecycle.ts');
      if (restoresACanvas(argv.slice(1), process.cwd())) {
        const { canvasCommand } = await import('./cli/canvas-commands.ts');
        process.exitCode = await canvasCommand('restore', argv.slice(1), process.env, cliIO(), { cwd: process.cwd() });
        return;
      }
      const { restoreCommand } = await import('./cli/backup.ts');
      process.exitCode = await restoreCommand(argv.slice(1), process.env, cliIO());
      return;
    }
    case 'backup': {
      const { backupCommand } = await import('./cli/backup.ts');
      process.exitCode = await backupCommand(argv.slice(1), process.env, cliIO());
      return;
    }
    case 'copy-data': {
      const { copyDataCommand } = await import('./cli/copy-data.ts');
      process.exitCode = await copyDataCommand(argv.slice(1), process.env, cliIO());
      return;
    }
    case 'migrate': {
      const { migrateCommand } = await import('./cli/migrate.ts');
      process.exitCode = await migrateCommand(argv.slice(1), process.env, cliIO());
      return;
    }
    case 'version':
    case '--version': {
      const build = buildInfo();
      if (argv.includes('--json')) process.stdout.write(`${JSON.stringify({ ...build, schema: SCHEMA_VERSION })}\n`);
      else
        process.stdout.write(
          `easel ${build.version} (commit ${build.commit}, ${build.buildDate ? `built ${build.buildDate}` : 'from source'}, ${build.target}, bun ${build.bun}; schema ${SCHEMA_VERSION})\n`,
        );
      return;
    }
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP + '\n');
      return;
    default: {
      const near = closestName(command, COMMANDS);
      process.stderr.write(`easel: unknown command ${JSON.stringify(command)}${near ? ` (did you mean easel ${near}?)` : ''}\n\n${HELP}\n`);
      process.exit(2);
    }
  }
}

await main(process.argv.slice(2));
