// A real Redis server from Debian's `redis-server` package, started once
// per test process on a loopback port, without persistence, and stopped when
// the process ends however it ends. Each caller gets a database of its own
// (Easel names its pub/sub channel after the database, so callers do not
// hear each other either).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, readyLine } from './child-server.ts';

/** Databases the server offers: one per caller, and a test process makes a few dozen at most. */
const DATABASES = 4096;

let server: Promise<{ port: number }> | undefined;
let databases = 0;

/** `redis://127.0.0.1:<port>/<db>`: an empty database on the shared test server. */
export async function createTestRedis(): Promise<string> {
  server ??= startServer();
  const { port } = await server;
  const db = ++databases;
  if (db >= DATABASES) throw new Error(`the test Redis has only ${DATABASES} databases`);
  return `redis://127.0.0.1:${port}/${db}`;
}

async function startServer(): Promise<{ port: number }> {
  if (!Bun.which('redis-server')) throw new Error('redis-server is not installed (apt-get install redis-server; test/prereqs.sh does it)');
  const dir = mkdtempSync(join(tmpdir(), 'easel-redis-'));
  const port = await freePort();
  const redis = ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
    .concat(['--databases', String(DATABASES), '--dir', dir, '--logfile', ''])
    .map((a) => `'${a}'`)
    .join(' ');
  // The server stops and its folder goes when this process's pipe closes, however the test run ends.
  const script = `${redis} & pid=$!; cat >/dev/null; kill $pid; wait $pid; rm -rf '${dir}'`;
  const proc = Bun.spawn(['sh', '-c', script], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' });
  proc.unref();
  await readyLine(proc.stdout, 'Ready to accept connections', 'redis-server');
  return { port };
}
