// passes: embedded — the built binary, started as a process on its own data directory
// Smoke test of the single executable: build it (build.ts, as `bun run build`
// does), run it from an unrelated working directory, talk to it, stop it.
import { SCHEMA_VERSION } from '../src/db/migrate.ts';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VERSION } from '../src/context.ts';
import { ROOT, runToExit, startEasel, stopEasel } from './spawn.ts';

const BINARY = join(ROOT, 'dist/easel');
const compileAvailable = Bun.spawnSync([process.execPath, 'build', '--help']).stdout.toString().includes('--compile');
if (!compileAvailable) console.warn('binary.test: SKIPPED: this bun has no `bun build --compile`');

describe.skipIf(!compileAvailable)('compiled binary', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'easel-binary-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  beforeAll(async () => {
    const build = Bun.spawn([process.execPath, join(ROOT, 'build.ts')], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' });
    const [out, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited]);
    if (code !== 0) throw new Error(`build failed (${code}): ${out}\n${err}`);
  }, 90_000);

  test('`easel version` works from any directory', async () => {
    // Built in: the commit, when, and for which platform.
    const r = await runToExit({ command: [BINARY], args: ['version'], cwd });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(
      new RegExp(
        `^easel ${VERSION.replace(/\./g, '\\.')} \\(commit \\S+, built \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ, ${process.platform}-${process.arch}, bun \\S+; schema ${SCHEMA_VERSION}\\)\n$`,
      ),
    );
  });

  test('serves /healthz, the dashboard and the embedded SDK; SIGTERM exits 0; data lands under its cwd', async () => {
    const t0 = performance.now();
    const easel = await startEasel({ command: [BINARY], cwd });
    const health = await fetch(`${easel.url}/healthz`);
    const coldStartMs = performance.now() - t0;
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      ok: true,
      version: VERSION,
      backends: { database: 'sqlite', blobs: 'local', coordination: 'local' },
    });
    expect(easel.startLine).toContain(`(data: ${join(cwd, 'data')}, auth: dev, urls: path)`);

    const page = await fetch(`${easel.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/assets/dashboard.js');
    expect((await fetch(`${easel.url}/assets/dashboard.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // The editor's TypeScript and CodeMirror, bundled by build.ts and embedded (the binary has no sources to build from).
    const editor = await fetch(`${easel.url}/assets/editor.js`);
    expect([editor.status, editor.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(await editor.text()).toContain('easelEditor');
    // The documentation, embedded by build.ts (the binary has no docs/ to read).
    const docs = await fetch(`${easel.url}/docs/operate`);
    expect([docs.status, docs.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await docs.text()).toContain('<h1 id="install-and-operate">Install and operate</h1>');

    const login = await fetch(`${easel.url}/auth/dev/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: easel.url },
      body: '{"email":"bin@example.com"}',
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const sdk = await fetch(`${easel.url}/sdk/v1.js`, { headers: { cookie } });
    expect(sdk.status).toBe(200);
    const bundle = await sdk.text();
    expect(bundle).toContain('globalThis.easel=');
    expect(bundle).toContain(`"${VERSION}"`);
    expect((await fetch(`${easel.url}/sdk/v1.d.ts`, { headers: { cookie } })).status).toBe(200);

    expect(await stopEasel(easel)).toBe(0);
    expect(existsSync(join(cwd, 'data', 'easel.db'))).toBe(true);
    console.log(
      `binary: ${(statSync(BINARY).size / 1024 / 1024).toFixed(1)} MiB, spawn → first /healthz 200 in ${coldStartMs.toFixed(0)} ms`,
    );
  });
});
