// passes: embedded — the process started and stopped by signals on a SQLite data directory
// The process as an operator sees it: `bun src/main.ts` started with an
// environment, stopped with a signal, restarted on the same data directory.
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobHashMismatchError, BlobLimitError, BlobStore } from '../src/blobs/store.ts';
import { startTimeOf } from '../src/db/data-dir-lock.ts';
import { openDatabase } from '../src/db/open.ts';
import { migrate, SCHEMA_VERSION } from '../src/db/migrate.ts';
import { MIGRATIONS } from '../src/db/migrations/index.ts';
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { VERSION } from '../src/context.ts';
import { createLogger } from '../src/log.ts';
import { startServer } from '../src/server/listener.ts';
import { runToExit, startEasel, stopEasel, START_LINE, type Easel } from './spawn.ts';

const scratch = mkdtempSync(join(tmpdir(), 'easel-process-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let n = 0;
/** A path that does not exist yet (easel must create it). */
const freshDir = () => join(scratch, `run-${++n}`);

const encode = (s: string) => new TextEncoder().encode(s);
/** The debug line the app writes when a request reaches it (its body may still be on the way). */
const STARTED_POST = /"msg":"request started","requestId":"[^"]+","method":"POST"/;

async function signIn(easel: Easel, email: string): Promise<string> {
  const res = await fetch(`${easel.url}/auth/dev/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: easel.url },
    body: JSON.stringify({ email }),
  });
  expect(res.status).toBe(200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

function readDb<T>(dataDir: string, fn: (db: Database) => T): T {
  const db = new Database(join(dataDir, 'easel.db'), { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

describe('commands', () => {
  test('`easel version` prints the version', async () => {
    const r = await runToExit({ args: ['version'] });
    // From source: the checkout's commit (or "unknown" outside git), no build date, this machine's platform.
    const platform = `${process.platform}-${process.arch}`;
    expect(r.stdout).toMatch(
      new RegExp(
        `^easel ${VERSION.replace(/\./g, '\\.')} \\(commit (?:[0-9a-f]{12}|unknown), from source, ${platform}, bun ${Bun.version}; schema ${SCHEMA_VERSION}\\)\n$`,
      ),
    );
    expect([r.code, r.stderr]).toEqual([0, '']);
    const json = await runToExit({ args: ['version', '--json'] });
    expect(JSON.parse(json.stdout)).toEqual({
      version: VERSION,
      commit: expect.stringMatching(/^([0-9a-f]{12}|unknown)$/),
      buildDate: null,
      target: platform,
      bun: Bun.version,
      schema: SCHEMA_VERSION,
    });
  });

  test('`easel help` prints usage naming every command', async () => {
    for (const arg of ['help', '--help']) {
      const r = await runToExit({ args: [arg] });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage:');
      for (const cmd of ['easel [serve]', 'easel migrate', 'easel version', 'easel help']) expect(r.stdout).toContain(cmd);
    }
  });

  test('an unknown command exits 2 with the usage on stderr', async () => {
    const r = await runToExit({ args: ['frobnicate'] });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toStartWith('easel: unknown command "frobnicate"\n');
    expect(r.stderr).toContain('Usage:');
  });
});

describe('start', () => {
  test('`easel` and `easel serve` print the start line with the real port and absolute data dir, then answer /healthz', async () => {
    for (const args of [[], ['serve']]) {
      const cwd = freshDir();
      mkdirSync(cwd, { recursive: true });
      const easel = await startEasel({ args, cwd });
      const m = START_LINE.exec(easel.startLine)!;
      expect(easel.startLine).toBe(`easel ${VERSION} listening on ${easel.url} (data: ${join(cwd, 'data')}, auth: dev, urls: path)`);
      expect(m[2]).toMatch(/^http:\/\/localhost:\d+$/);
      expect(m[2]).not.toBe('http://localhost:0');
      const res = await fetch(`${easel.url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        ok: true,
        version: VERSION,
        backends: { database: 'sqlite', blobs: 'local', coordination: 'local' },
      });
      // The dev warning goes to stderr, so stdout keeps exactly one human line.
      expect(easel.stderr()).toContain('anyone can sign in as anyone');
      expect(await stopEasel(easel)).toBe(0);
      expect(existsSync(join(cwd, 'data', 'easel.db'))).toBe(true);
    }
  });

  test('`easel serve` reads its flags: --data-dir is EASEL_DATA_DIR, --help prints the usage, anything else is refused (it was ignored: an empty instance in ./data)', async () => {
    const cwd = freshDir();
    mkdirSync(cwd, { recursive: true });
    const elsewhere = join(freshDir(), 'kept');
    const easel = await startEasel({ args: ['serve', '--data-dir', elsewhere], cwd });
    expect(easel.startLine).toContain(`(data: ${elsewhere},`);
    expect(await stopEasel(easel)).toBe(0);
    expect(existsSync(join(elsewhere, 'easel.db'))).toBe(true);
    expect(existsSync(join(cwd, 'data'))).toBe(false);

    const help = await runToExit({ args: ['serve', '--help'], cwd });
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('Usage: easel [serve] [--data-dir <dir>]')]);
    for (const [args, said] of [
      [['serve', '--port', '9999'], 'easel: serve: unknown option --port'],
      [['serve', '--json'], 'easel: serve: unknown option --json'],
      [['serve', 'now'], 'easel: serve: serve takes no "now"'],
    ] as const) {
      const refused = await runToExit({ args: [...args], cwd });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toStartWith(`${said}\n\nUsage: easel [serve]`);
    }
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  test('the start line names the address it listens on, and the base URL when people reach it elsewhere', async () => {
    // The base URL names a port the server does not listen on (a proxy in front): the line must not pass it off as the listener.
    const dataDir = freshDir();
    const easel = await startEasel({ env: { EASEL_DATA_DIR: dataDir, EASEL_BASE_URL: 'http://127.0.0.1:31900' } });
    expect(easel.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(easel.url).not.toBe('http://127.0.0.1:31900');
    expect(easel.startLine).toBe(
      `easel ${VERSION} listening on ${easel.url} (public URL: http://127.0.0.1:31900, data: ${dataDir}, auth: dev, urls: path)`,
    );
    expect((await fetch(`${easel.url}/healthz`)).status).toBe(200);
    expect(await stopEasel(easel)).toBe(0);
  });

  test('the start line reports the configured modes the listen address and the public URL', async () => {
    const dataDir = freshDir();
    const easel = await startEasel({
      env: {
        EASEL_DATA_DIR: dataDir,
        EASEL_AUTH_MODE: 'proxy',
        EASEL_URL_MODE: 'subdomain',
        EASEL_BASE_URL: 'https://easel.example.com',
        EASEL_COOKIE_DOMAIN: 'example.com',
      },
    });
    // It listens on loopback; people reach it at the public URL.
    expect(easel.startLine).toMatch(/^easel \S+ listening on http:\/\/127\.0\.0\.1:\d+ \(/);
    expect(easel.startLine).toBe(
      `easel ${VERSION} listening on ${easel.url} (public URL: https://easel.example.com, data: ${dataDir}, auth: proxy, urls: subdomain)`,
    );
    expect((await fetch(`${easel.url}/healthz`)).status).toBe(200);
    expect(await stopEasel(easel)).toBe(0);
    expect(easel.stderr()).not.toContain('anyone can sign in');
    // Sessions are host-only now: a cookie domain left in an old setup is named as ignored.
    expect(easel.stderr()).toContain('warning: EASEL_COOKIE_DOMAIN is ignored');
  });

  test('oidc: an issuer that does not answer stops the start with one line, exit 1 (an outage systemd retries, not a configuration error)', async () => {
    const r = await runToExit({
      env: {
        EASEL_DATA_DIR: freshDir(),
        EASEL_AUTH_MODE: 'oidc',
        EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on',
        EASEL_OIDC_ISSUER: 'http://127.0.0.1:9/',
        EASEL_OIDC_CLIENT_ID: 'easel',
        EASEL_OIDC_CLIENT_SECRET: 'not-a-real-secret',
      },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith('easel: refusing to start: EASEL_OIDC_ISSUER http://127.0.0.1:9/ could not be discovered');
    expect(r.stderr).not.toContain('not-a-real-secret');
  });

  test('an invalid value stops the start: exit 2, one stderr line naming the variable, nothing written', async () => {
    const cases: Array<[string, string]> = [
      ['EASEL_PORT', 'eighty'],
      ['EASEL_AUTH_MODE', 'ldap'],
      ['EASEL_LOG_LEVEL', 'loud'],
      ['EASEL_SECRET_KEY', 'not-a-real-key-value'],
    ];
    for (const [variable, value] of cases) {
      const dataDir = freshDir();
      const r = await runToExit({ env: { EASEL_DATA_DIR: dataDir, [variable]: value } });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines.length).toBe(1);
      expect(lines[0]).toStartWith(`easel: invalid configuration: ${variable}: expected `);
      expect(existsSync(dataDir)).toBe(false);
    }
    const secret = await runToExit({ env: { EASEL_DATA_DIR: freshDir(), EASEL_SECRET_KEY: 'not-a-real-key-value' } });
    expect(secret.stderr).not.toContain('not-a-real-key-value');
  });

  test('path mode under proxy sign-in: refused without EASEL_PATH_MODE_TRUSTED_AUTHORS=on; with it, the start says what path mode does not protect', async () => {
    const refused = await runToExit({ env: { EASEL_DATA_DIR: freshDir(), EASEL_AUTH_MODE: 'proxy' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('easel: invalid configuration: EASEL_PATH_MODE_TRUSTED_AUTHORS: expected on'),
    ]);
    const easel = await startEasel({
      env: { EASEL_DATA_DIR: freshDir(), EASEL_AUTH_MODE: 'proxy', EASEL_PATH_MODE_TRUSTED_AUTHORS: 'on' },
    });
    try {
      expect((await fetch(`${easel.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await stopEasel(easel)).toBe(0);
    }
    expect(easel.stderr()).toContain('note: path mode: every canvas shares the dashboard');
    expect(easel.stderr()).not.toContain('EASEL_COOKIE_DOMAIN');
  });

  test('a busy port and an unusable data directory each stop the start with one line and exit 1', async () => {
    const first = await startEasel({ env: { EASEL_DATA_DIR: freshDir() } });
    const port = new URL(first.url).port;
    const busy = await runToExit({ env: { EASEL_DATA_DIR: freshDir(), EASEL_PORT: port } });
    expect(busy.code).toBe(1);
    expect(busy.stderr.trim().split('\n').length).toBe(1);
    expect(busy.stderr).toStartWith(`easel: cannot listen on 127.0.0.1:${port}: `);
    expect(await stopEasel(first)).toBe(0);

    const notADir = join(scratch, 'a-file');
    writeFileSync(notADir, 'x');
    const bad = await runToExit({ env: { EASEL_DATA_DIR: notADir } });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n').length).toBe(1);
    expect(bad.stderr).toStartWith(`easel: invalid configuration: EASEL_DATA_DIR: ${notADir} is a file, not a directory`);
  });

  test('one server per data directory: a second is refused naming the first one’s pid; a dead one’s pid file is taken over', async () => {
    const dataDir = freshDir();
    const first = await startEasel({ env: { EASEL_DATA_DIR: dataDir } });
    const second = await runToExit({ env: { EASEL_DATA_DIR: dataDir, EASEL_PORT: '0' } });
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split('\n')).toEqual([
      `easel: refusing to start: another easel process (pid ${first.proc.pid}) is using this data directory (${dataDir}); stop it first`,
    ]);
    expect(await stopEasel(first)).toBe(0);
    // A crash leaves the file behind; its process is gone, so the next start takes it over.
    writeFileSync(join(dataDir, 'easel.pid'), '999999\n');
    expect(await stopEasel(await startEasel({ env: { EASEL_DATA_DIR: dataDir } }))).toBe(0);
    // After a reboot the file survives and its pid may be another program's: one that started at another time is not Easel.
    const other = Bun.spawn(['sleep', '60'], { stdout: 'ignore' });
    try {
      const started = startTimeOf(other.pid)!;
      expect(started).toMatch(/^\d+$/);
      writeFileSync(join(dataDir, 'easel.pid'), `${other.pid} ${Number(started) + 1}\n`);
      expect(await stopEasel(await startEasel({ env: { EASEL_DATA_DIR: dataDir } }))).toBe(0);
      // The same pid that started when the file says is the holder: refused.
      writeFileSync(join(dataDir, 'easel.pid'), `${other.pid} ${started}\n`);
      const refused = await runToExit({ env: { EASEL_DATA_DIR: dataDir, EASEL_PORT: '0' } });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`another easel process (pid ${other.pid}) is using this data directory`);
    } finally {
      other.kill();
      await other.exited;
    }
  });

  test('unknown EASEL_* variables are named with the closest setting; every interface without a base URL is warned about', async () => {
    const easel = await startEasel({
      env: { EASEL_DATA_DIR: freshDir(), EASEL_PORTT: '1', EASEL_WHATEVER_THING: 'x', EASEL_HOST: '0.0.0.0' },
    });
    expect(await stopEasel(easel)).toBe(0);
    expect(easel.stderr()).toContain('warning: EASEL_PORTT is not an Easel setting and is ignored (did you mean EASEL_PORT?)');
    expect(easel.stderr()).toContain('warning: EASEL_WHATEVER_THING is not an Easel setting and is ignored\n');
    expect(easel.stderr()).toContain('warning: listening on every interface but EASEL_BASE_URL is not set');
  });
});

describe('restarts', () => {
  test('migrations run once: a restart leaves schema_migrations unchanged', async () => {
    const dataDir = freshDir();
    const env = { EASEL_DATA_DIR: dataDir };
    expect(await stopEasel(await startEasel({ env }))).toBe(0);
    const query = (db: Database) => db.query('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all();
    const before = readDb(dataDir, query);
    expect(before.map((r: any) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await stopEasel(await startEasel({ env }))).toBe(0);
    expect(readDb(dataDir, query)).toEqual(before);
  });

  test('a data directory a newer Easel migrated is refused with one line, and left exactly as it was', async () => {
    const dataDir = freshDir();
    // A directory at this build's schema, then what a later release leaves: a migration this build does not know.
    const db = openDatabase(dataDir);
    db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(SCHEMA_VERSION + 1, 'from the future', 0);
    const before = JSON.stringify(db.query('SELECT * FROM schema_migrations ORDER BY version').all());
    db.close();
    const run = await runToExit({ env: { EASEL_DATA_DIR: dataDir } });
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringContaining(`refusing to start: the data directory was written by a newer Easel (schema ${SCHEMA_VERSION + 1}`),
    ]);
    expect(run.stdout).not.toContain('listening on');
    expect(readDb(dataDir, (d) => JSON.stringify(d.query('SELECT * FROM schema_migrations ORDER BY version').all()))).toBe(before);
  });

  test('users and sessions survive a restart on the same data directory', async () => {
    const dataDir = freshDir();
    const env = { EASEL_DATA_DIR: dataDir };
    const first = await startEasel({ env });
    const cookie = await signIn(first, 'keeper@example.com');
    expect(await stopEasel(first)).toBe(0);

    const second = await startEasel({ env });
    // /sdk/v1.js sits behind the session gate: the old cookie still opens it.
    expect((await fetch(`${second.url}/sdk/v1.js`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${second.url}/sdk/v1.js`)).status).toBe(401);
    expect(await stopEasel(second)).toBe(0);
    const users = readDb(dataDir, (db) => db.query('SELECT email FROM users').all());
    expect(users).toEqual([{ email: 'keeper@example.com' }]);
  });
});

/**
 * A dev sign-in whose body is sent in two halves: resolves once the server
 * has the request (its debug line); `finish` sends the rest and awaits the answer.
 */
async function halfSentSignIn(
  easel: Easel,
  firstHalf: string,
  headers: Record<string, string> = {},
): Promise<{ answer: Promise<Response>; finish(rest: string): Promise<Response> }> {
  let body!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (body = c) });
  const answer = fetch(`${easel.url}/auth/dev/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: easel.url, ...headers },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  body.enqueue(encode(firstHalf));
  await easel.printed(STARTED_POST);
  return {
    answer,
    finish(rest) {
      body.enqueue(encode(rest));
      body.close();
      return answer;
    },
  };
}

describe('graceful shutdown', () => {
  test('SIGTERM: the listener closes, the in-flight request completes, exit 0, the WAL is folded back', async () => {
    const dataDir = freshDir();
    const easel = await startEasel({ env: { EASEL_DATA_DIR: dataDir, EASEL_LOG_LEVEL: 'debug' } });
    // A sign-in whose body arrives in two halves, with the signal in between.
    const signIn = await halfSentSignIn(easel, '{"email":"slow@example.com",');
    easel.signal('SIGTERM');

    // New connections are refused while the old request is still open (the listener closes as shutdown starts).
    await easel.printed(/"msg":"shutting down"/);
    const refused = await fetch(`${easel.url}/healthz`).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);

    const res = await signIn.finish('"name":"Slow"}');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ email: 'slow@example.com', name: 'Slow' });
    expect(res.headers.get('set-cookie')).toContain('easel_session=');

    expect(await easel.exited).toBe(0);
    expect(easel.stdout()).toContain('"msg":"shutting down","signal":"SIGTERM"');
    const wal = join(dataDir, 'easel.db-wal');
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    expect(readDb(dataDir, (db) => db.query('SELECT email FROM users').all())).toEqual([{ email: 'slow@example.com' }]);
    expect(readDb(dataDir, (db) => db.query('PRAGMA integrity_check').get())).toEqual({ integrity_check: 'ok' });
  });

  test('SIGTERM: every request line is on stdout at exit, in order, the in-flight request’s (answered during shutdown) too', async () => {
    const easel = await startEasel({ env: { EASEL_DATA_DIR: freshDir(), EASEL_LOG_LEVEL: 'debug' } });
    const ids = Array.from({ length: 40 }, (_, i) => `before-term-${i}`);
    for (const id of ids)
      expect((await fetch(`${easel.url}/healthz?token=secret-query`, { headers: { 'x-request-id': id } })).status).toBe(200);
    const signIn = await halfSentSignIn(easel, '{"email":"late@example.com",', { 'x-request-id': 'in-flight' });
    easel.signal('SIGTERM');
    await easel.printed(/"msg":"shutting down"/);
    expect((await signIn.finish('"name":"Late"}')).status).toBe(200);
    expect(await easel.exited).toBe(0);

    const requestLines = easel
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
    expect(requestLines.map((l) => l.requestId)).toEqual([...ids, 'in-flight']);
    expect(requestLines[0]).toMatchObject({ level: 'info', method: 'GET', path: '/healthz', status: 200 });
    expect(requestLines.at(-1)).toMatchObject({ level: 'info', method: 'POST', path: '/auth/dev/login', status: 200 });
    expect(easel.stdout()).not.toContain('secret-query');
  });

  test('SIGINT shuts down the same way; a second signal exits at once without waiting', async () => {
    const idle = await startEasel({ env: { EASEL_DATA_DIR: freshDir() } });
    idle.signal('SIGINT');
    expect(await idle.exited).toBe(0);

    const easel = await startEasel({ env: { EASEL_DATA_DIR: freshDir(), EASEL_LOG_LEVEL: 'debug' } });
    const signIn = await halfSentSignIn(easel, '{"email":');
    const pending = signIn.answer.catch(() => null);
    easel.signal('SIGINT');
    // The first one is being handled (draining, the request still open): the second is "again".
    await easel.printed(/"msg":"shutting down"/);
    easel.signal('SIGINT');
    expect(await easel.exited).toBe(130);
    expect(easel.stderr()).toContain('SIGINT again: exiting without waiting');
    await pending; // the connection died with the process
  });
});

describe('shutdown, in process', () => {
  test('the drain is bounded: a request that never finishes is cut off, then hooks run and the database closes', async () => {
    const logs: Array<Record<string, unknown>> = [];
    let reached!: () => void;
    const started = new Promise<void>((resolve) => (reached = resolve));
    const ctx = await createCore(loadConfig({ EASEL_DATA_DIR: freshDir(), EASEL_PORT: '0' }), {
      log: createLogger('debug', (l) => {
        const line = JSON.parse(l);
        logs.push(line);
        if (line.msg === 'request started' && line.method === 'POST') reached();
      }),
    });
    const running = await startServer(ctx, { drainMs: 300 });
    // Features stop in reverse start order, with the database still open, and one failing does not stop the others.
    const order: string[] = [];
    const { realtime, ai, usage } = running.app.features;
    const stopRealtime = realtime.stop.bind(realtime);
    realtime.stop = () => {
      order.push('realtime');
      stopRealtime();
    };
    ai.stop = () => {
      throw new Error('a failing stop does not stop the others');
    };
    const stopUsage = usage.stop.bind(usage);
    usage.stop = async () => {
      ctx.db!.query('SELECT 1').get();
      order.push('usage');
      await stopUsage();
    };
    expect(ctx.config.baseUrl).toBe(`http://localhost:${running.server.port}`);
    const stream = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(encode('{"email":')) }); // never closed
    const hanging = fetch(`${running.url}/auth/dev/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ctx.config.baseUrl },
      body: stream,
      duplex: 'half',
    } as RequestInit).then(
      (r) => r.status,
      () => 'cut off',
    );
    await started;
    const t0 = performance.now();
    await running.shutdown();
    // The drain waited for the request (a lower bound: a loaded machine only makes it longer), then cut it off.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(250);
    expect(await hanging).toBe('cut off');
    expect(order).toEqual(['realtime', 'usage']);
    expect(logs.some((l) => l.msg === 'shutdown: in-flight requests cut off')).toBe(true);
    expect(logs.some((l) => l.msg === 'stopping a feature failed')).toBe(true);
    expect(() => ctx.db!.query('SELECT 1').get()).toThrow();
    // Calling it again is harmless (both signals may arrive).
    await running.shutdown();
  });
});

describe('data directory', () => {
  test('the database runs in WAL mode with NORMAL sync, a busy timeout and foreign keys on; migrating again is a no-op', () => {
    const dataDir = freshDir();
    const db = openDatabase(dataDir);
    try {
      expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(db.query('PRAGMA synchronous').get()).toEqual({ synchronous: 1 });
      expect((db.query('PRAGMA busy_timeout').get() as { timeout: number }).timeout).toBeGreaterThan(0);
      expect(db.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 });
      expect(migrate(db)).toEqual([]);
    } finally {
      db.close();
    }
  });

  test('blobs are content-addressed, written whole or not at all, and survive a reopen', async () => {
    const dataDir = freshDir();
    const store = new BlobStore(dataDir);
    const chunks = (parts: string[]) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          for (const p of parts) c.enqueue(encode(p));
          c.close();
        },
      });
    const { hash, size } = await store.put(chunks(['hello ', 'world']));
    expect(hash).toBe(new Bun.CryptoHasher('sha256').update('hello world').digest('hex'));
    expect(size).toBe(11);
    expect(store.pathOf(hash)).toBe(join(dataDir, 'blobs', hash.slice(0, 2), hash));

    await expect(store.put(chunks(['12345', '67890']), { maxBytes: 8 })).rejects.toBeInstanceOf(BlobLimitError);
    await expect(store.put(chunks(['abc']), { expectedHash: hash })).rejects.toBeInstanceOf(BlobHashMismatchError);
    // Refused writes leave nothing behind, not even in tmp/.
    expect(readdirSync(join(dataDir, 'blobs', 'tmp'))).toEqual([]);
    expect([...store.hashes()]).toEqual([hash]);

    // A crash's leftover in tmp/ is cleared at the next open; stored blobs remain.
    writeFileSync(join(dataDir, 'blobs', 'tmp', 'interrupted'), 'partial');
    const reopened = new BlobStore(dataDir);
    expect(readdirSync(join(dataDir, 'blobs', 'tmp'))).toEqual([]);
    expect(await reopened.file(hash).text()).toBe('hello world');
  });
});
