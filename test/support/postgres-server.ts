// A real PostgreSQL server from Debian's packages, started once per test
// process on a loopback port (as the `postgres` user when the tests run as
// root: Postgres refuses root), with a fresh database per caller.
import { SQL } from 'bun';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, readyLine } from './child-server.ts';

let server: Promise<{ port: number }> | undefined;
let databases = 0;

/** A URL of a new, empty database on the shared test server. */
export async function createTestDatabase(): Promise<string> {
  server ??= startServer();
  const { port } = await server;
  const name = `easel_test_${process.pid}_${++databases}`;
  const admin = new SQL({ url: `postgres://easel@127.0.0.1:${port}/postgres`, max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  return `postgres://easel@127.0.0.1:${port}/${name}`;
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  if (!version) throw new Error('PostgreSQL is not installed (apt-get install postgresql; test/prereqs.sh does it)');
  return join(root, version, 'bin');
}

async function startServer(): Promise<{ port: number }> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'easel-pg-'));
  const asPostgres = process.getuid?.() === 0;
  if (asPostgres) {
    const ids = Bun.spawnSync(['id', '-u', 'postgres']);
    const uid = Number(ids.stdout.toString().trim());
    const gid = Number(Bun.spawnSync(['id', '-g', 'postgres']).stdout.toString().trim());
    chownSync(dir, uid, gid);
  }
  const as = (argv: string[]) => (asPostgres ? ['runuser', '-u', 'postgres', '--', ...argv] : argv);
  const data = join(dir, 'data');
  const init = Bun.spawnSync(as([join(bin, 'initdb'), '-D', data, '-A', 'trust', '-U', 'easel', '-E', 'UTF8', '--locale=C.UTF-8']));
  if (init.exitCode !== 0)
    throw new Error(
      `initdb failed (exit ${init.exitCode}, signal ${init.signalCode ?? 'none'}): ${init.stderr.toString()} ${init.stdout.toString()}`,
    );
  const port = await freePort();
  const postgres = [join(bin, 'postgres'), '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1']
    .concat(['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'])
    .map((a) => `'${a}'`)
    .join(' ');
  // The server stops and its files go when this process's pipe closes, however the test run ends.
  const script = `${postgres} & pid=$!; cat >/dev/null; kill -INT $pid; wait $pid; rm -rf '${dir}'`;
  const proc = Bun.spawn(as(['sh', '-c', script]), { stdin: 'pipe', stdout: 'ignore', stderr: 'pipe' });
  proc.unref();
  await readyLine(proc.stderr, 'database system is ready to accept connections', 'postgres');
  return { port };
}
