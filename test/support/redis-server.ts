// A real Redis server from Debian's `redis-server` package, started once
// per test process on a loopback port, without persistence, and stopped when
// the process ends however it ends. Each caller gets a database of its own
// (Easel names its pub/sub channel after the database, so callers do not
// hear each other either). A test that stops Redis under running nodes
// starts a private server instead (startRedisServer), which it can stop and
// start again on the same port.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, readyLine } from './child-server.ts';

/** Databases the server offers: one per caller, and a test process makes a few dozen at most. */
const DATABASES = 4096;

let server: Promise<RedisServer> | undefined;
let databases = 0;

export interface RedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>/<db>` */
  url(db: number): string;
  /** Stops the server (its data is gone: it keeps none); resolves once it exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty; resolves once it accepts connections. */
  start(): Promise<void>;
}

/** `redis://127.0.0.1:<port>/<db>`: an empty database on the shared test server. */
export async function createTestRedis(): Promise<string> {
  server ??= startRedisServer();
  const shared = await server;
  const db = ++databases;
  if (db >= DATABASES) throw new Error(`the test Redis has only ${DATABASES} databases`);
  return shared.url(db);
}

/** A Redis server of the caller's own, on a free loopback port. */
export async function startRedisServer(): Promise<RedisServer> {
  if (!Bun.which('redis-server')) throw new Error('redis-server is not installed (apt-get install redis-server; test/prereqs.sh does it)');
  const port = await freePort();
  let running: RedisProcess | null = null;
  const start = async () => {
    if (running) return;
    running = await runServer(port);
  };
  await start();
  return {
    port,
    url: (db) => `redis://127.0.0.1:${port}/${db}`,
    start,
    async stop() {
      const proc = running;
      running = null;
      if (!proc) return;
      // Closing the pipe is what stops it (below).
      void proc.stdin.end();
      await proc.exited;
    },
  };
}

type RedisProcess = Bun.Subprocess<'pipe', 'pipe', 'inherit'>;

async function runServer(port: number): Promise<RedisProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'easel-redis-'));
  const redis = ['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']
    .concat(['--databases', String(DATABASES), '--dir', dir, '--logfile', ''])
    .map((a) => `'${a}'`)
    .join(' ');
  // The server stops and its folder goes when this process's pipe closes, however the test run ends.
  const script = `${redis} & pid=$!; cat >/dev/null; kill $pid; wait $pid; rm -rf '${dir}'`;
  const proc = Bun.spawn(['sh', '-c', script], { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' });
  proc.unref();
  await readyLine(proc.stdout, 'Ready to accept connections', 'redis-server');
  return proc;
}
