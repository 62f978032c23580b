// A real PostgreSQL server from Debian's packages, started once per test
// process on a loopback port (as the `postgres` user when the tests run as
// root: Postgres refuses root), with a fresh database per caller.
import { SQL } from 'bun';
import { chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  const port = await freePort();
  const postgres = [join(bin, 'postgres'), '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1']
    .concat(['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'])
    .map((a) => `'${a}'`)
    .join(' ');
  // The server stops and its files go when this process's pipe closes, however the test run ends.
  const script = `${postgres} & pid=$!; cat >/dev/null; kill -INT $pid; wait $pid; rm -rf '${dir}'`;
  const proc = Bun.spawn(as(['sh', '-c', script]), { stdin: 'pipe', stdout: 'ignore', stderr: 'pipe' });
  proc.unref();
  await readyLine(proc.stderr);
  return { port };
}

async function readyLine(stderr: ReadableStream<Uint8Array>): Promise<void> {
  let text = '';
  const decoder = new TextDecoder();
  const reader = stderr.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`postgres exited before it was ready:\n${text}`);
    text += decoder.decode(value, { stream: true });
    if (text.includes('database system is ready to accept connections')) break;
  }
  // Keep draining its log so the server never blocks on a full pipe.
  void (async () => {
    while (!(await reader.read()).done);
  })();
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}
