// passes: embedded — the CLI's side; the routes it calls run in the cluster pass
// The server side of `easel login` (GET/POST /auth/cli, POST /auth/cli/token)
// and the CLI commands' refusals, over HTTP and as processes. The browser
// flow itself is in test/browser/cli.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { challengeOf, CLI_CODE_TTL_MS } from '../src/auth/cli-login.ts';
import { dashboardOrigin } from '../src/http/cross-site.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { expectCode } from './expect-code.ts';
import { FROM_SOURCE, runToExit } from './spawn.ts';
import { writeLink } from '../src/cli/project-link.ts';

let app: TestApp;
let clock = Date.UTC(2030, 0, 10, 12);
let cookie: string;
beforeAll(async () => {
  app = await startTestApp({ now: () => clock, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  cookie = await app.signIn('cli@example.com');
});
afterAll(() => app.close());

const verifier = 'v'.repeat(43);
const query = (extra: Record<string, string> = {}) =>
  new URLSearchParams({ port: '40123', state: 's'.repeat(20), challenge: challengeOf(verifier), name: 'easel CLI on test', ...extra });

async function approve(decision = 'allow'): Promise<URL> {
  const res = await app.request('/auth/cli', {
    method: 'POST',
    cookie,
    body: `${query()}&decision=${decision}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}
const exchange = (code: string, v = verifier) => app.request('/auth/cli/token', { method: 'POST', json: { code, verifier: v } });

describe('/auth/cli', () => {
  test('the approval page: signed out goes to sign-in and back; bad parameters are a plain refusal', async () => {
    const out = await app.request(`/auth/cli?${query()}`);
    expect(out.status).toBe(302);
    const login = new URL(out.headers.get('location')!, 'http://x');
    expect(login.pathname).toBe('/auth/login');
    expect(login.searchParams.get('returnTo')).toBe(`/auth/cli?${query()}`);
    const page = await app.request(`/auth/cli?${query()}`, { cookie });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const text = await page.text();
    expect(text).toContain('cli@example.com');
    expect(text).toContain('easel CLI on test');
    const bads: Array<Record<string, string>> = [
      { port: '80' },
      { port: 'x' },
      { state: 'short' },
      { challenge: 'abc' },
      { name: 'a\u0001b' },
    ];
    for (const bad of bads) expect((await app.request(`/auth/cli?${query(bad)}`, { cookie })).status).toBe(400);
  });

  test("approve: 303 to the CLI's loopback port with state and a code; cancel: with error=denied", async () => {
    const to = await approve();
    expect(to.origin).toBe('http://127.0.0.1:40123');
    expect(to.pathname).toBe('/callback');
    expect(to.searchParams.get('state')).toBe('s'.repeat(20));
    expect(to.searchParams.get('code')).toMatch(/^[0-9A-Za-z]{32}$/);
    const denied = await approve('deny');
    expect(denied.searchParams.get('error')).toBe('denied');
    expect(denied.searchParams.has('code')).toBe(false);
  });

  test('an approval body past 4 KiB is refused (read only up to the cap)', async () => {
    const res = await app.request('/auth/cli', {
      method: 'POST',
      cookie,
      body: `${query()}&decision=allow&pad=${'x'.repeat(64 * 1024)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  test('approving is a write: another site cannot make a signed-in browser do it, and it needs a session', async () => {
    const init = { method: 'POST', body: `${query()}&decision=allow`, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    await expectCode(await app.request('/auth/cli', { ...init, cookie, origin: 'https://evil.example' }), 403, 'CROSS_SITE_FORBIDDEN');
    const anonymous = await app.request('/auth/cli', { ...init, origin: dashboardOrigin(app.ctx.config) });
    expect([anonymous.status, await body(anonymous)]).toEqual([401, { error: 'unauthorized' }]);
  });

  test('the code buys one token with the right verifier, once, within five minutes', async () => {
    const code = (await approve()).searchParams.get('code')!;
    const got = await exchange(code);
    expect(got.status).toBe(200);
    const b = await body(got);
    const token: string = b.token;
    expect(token).toMatch(/^easel_pat_/);
    expect(b.user.email).toBe('cli@example.com');
    const me = await app.request('/api/me', { headers: { authorization: `Bearer ${token}` } });
    expect((await me.json()).email).toBe('cli@example.com');
    // Spent.
    await expectCode(await exchange(code), 400, 'INVALID_REQUEST');
    // A wrong verifier spends it too (no guessing).
    const other = (await approve()).searchParams.get('code')!;
    await expectCode(await exchange(other, 'w'.repeat(43)), 400, 'INVALID_REQUEST');
    await expectCode(await exchange(other), 400, 'INVALID_REQUEST');
    // Too late.
    const late = (await approve()).searchParams.get('code')!;
    clock += CLI_CODE_TTL_MS + 1;
    await expectCode(await exchange(late), 400, 'INVALID_REQUEST');
    await expectCode(await app.request('/auth/cli/token', { method: 'POST', json: { code: 'x' } }), 400, 'INVALID_BODY');
  });
});

describe('CLI commands as processes', () => {
  let work: string;
  let listening: TestApp;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'easel-cli-'));
    listening = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await listening.close();
    rmSync(work, { recursive: true, force: true });
  });
  const easel = (args: string[], extra: Record<string, string> = {}) =>
    runToExit({ args, cwd: work, env: { HOME: work, XDG_CONFIG_HOME: join(work, 'cfg'), ...extra } });

  test('not signed in: exit 1 naming easel login; usage errors exit 2; a refused pasted token stores nothing', async () => {
    const none = await easel(['canvases']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('NOT_SIGNED_IN');
    const reachable = await easel(['rollback', '3', '--canvas', 'x', '--api', listening.base]);
    expect(reachable.code).toBe(1);
    expect(reachable.stderr).toContain(`NOT_SIGNED_IN: not signed in to ${listening.base}`);
    expect((await easel(['rollback', 'x', '--api', listening.base])).code).toBe(2);
    expect((await easel(['login', 'http://a.test', 'http://b.test'])).code).toBe(2);
    expect((await easel(['canvases', '--bogus'])).code).toBe(2);
    const bad = await runToExit({
      args: ['login', listening.base, '--with-token'],
      cwd: work,
      env: { HOME: work, XDG_CONFIG_HOME: join(work, 'cfg') },
    });
    expect(bad.code).toBe(2);
  });

  test("easel login without a URL uses the folder's linked instance", async () => {
    const folder = mkdtempSync(join(work, 'linked-'));
    writeLink(folder, { instance: listening.base, canvasId: 'c1', slug: 's1' });
    const proc = Bun.spawn([...FROM_SOURCE, 'login', '--no-browser'], {
      cwd: folder,
      env: { ...process.env, HOME: work, XDG_CONFIG_HOME: join(work, 'cfg') },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const reader = proc.stderr.getReader();
    let printed = '';
    while (!printed.includes('waiting for the browser')) {
      const { value, done } = await reader.read();
      if (done) break;
      printed += new TextDecoder().decode(value);
    }
    proc.kill();
    await proc.exited;
    expect(printed).toContain(`${listening.base}/auth/cli?`);
  });

  test('an unknown command: "did you mean"; an unreachable instance: cannot reach, not NOT_SIGNED_IN', async () => {
    const typo = await easel(['deplyo']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toStartWith('easel: unknown command "deplyo" (did you mean easel deploy?)');
    const down = await easel(['canvases', '--api', 'http://127.0.0.1:1', '--json']);
    expect(down.code).toBe(1);
    expect(down.stderr).toStartWith('easel canvases: NETWORK_ERROR: cannot reach http://127.0.0.1:1');
    expect(JSON.parse(down.stdout)).toEqual({ code: 'NETWORK_ERROR', message: expect.stringContaining('cannot reach') });
  });

  test('easel rollback to a version that is not kept: no such version, not INVALID_PATH', async () => {
    const cookie = await listening.signIn('rollback@example.com');
    const made = await body(await listening.request('/api/tokens', { method: 'POST', cookie, json: { name: 'cli' } }));
    const env = { EASEL_TOKEN: made.token, EASEL_API_BASE_URL: listening.base };
    const created = JSON.parse((await easel(['create', 'Rollback', '--json'], env)).stdout);
    const r = await easel(['rollback', '99', '--canvas', created.id, '--json'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('easel rollback: NOT_FOUND: no version 99 among the kept ones (easel versions lists them)\n');
    expect(JSON.parse(r.stdout)).toEqual({ code: 'NOT_FOUND', message: 'no version 99 among the kept ones (easel versions lists them)' });
  });

  test('easel transfer gives a canvas away (the caller stays an editor); a missing argument is a usage error', async () => {
    const cookie = await listening.signIn('transfer-from@example.com');
    await listening.signIn('transfer-to@example.com');
    const made = await body(await listening.request('/api/tokens', { method: 'POST', cookie, json: { name: 'cli' } }));
    const env = { EASEL_TOKEN: made.token, EASEL_API_BASE_URL: listening.base };
    const created = JSON.parse((await easel(['create', 'Given away', '--json'], env)).stdout);
    expect((await easel(['transfer', created.slug], env)).code).toBe(2);
    const unknown = await easel(['transfer', created.slug, 'nobody@example.com'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toStartWith('easel transfer: NOT_FOUND: ');
    const r = await easel(['transfer', created.slug, 'transfer-to@example.com'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Given away (${created.id}) now belongs to transfer-to@example.com; you are an editor on it\n`);
    const members = await body(await listening.request(`/api/canvases/${created.id}/members`, { cookie }));
    expect(members.members.map((m: { email: string; role: string }) => `${m.role}:${m.email}`)).toEqual([
      'owner:transfer-to@example.com',
      'editor:transfer-from@example.com',
    ]);
  });

  test('EASEL_TOKEN signs every command in (CI with one secret): create, deploy a folder by id, versions', async () => {
    const cookie = await listening.signIn('ci@example.com');
    const made = await body(await listening.request('/api/tokens', { method: 'POST', cookie, json: { name: 'ci' } }));
    const env = { EASEL_TOKEN: made.token, EASEL_API_BASE_URL: listening.base };
    const created = JSON.parse((await easel(['create', 'From CI', '--json'], env)).stdout);
    const site = mkdtempSync(join(work, 'site-'));
    await Bun.write(join(site, 'index.html'), '<h1>ci</h1>');
    const deployed = await easel(['deploy', site, '--canvas', created.id, '--json'], env);
    expect(deployed.code).toBe(0);
    expect(JSON.parse(deployed.stdout)).toMatchObject({ outcome: 'published', version: 1, fileCount: 1 });
    const versions = JSON.parse((await easel(['versions', '--canvas', created.slug, '--json'], env)).stdout);
    expect(versions.versions).toHaveLength(1);
    expect(versions.versions[0].warnings).toEqual([]);
    // A deploy's warnings are kept with its version: a person finds them again after CI's log is gone.
    await Bun.write(join(site, 'index.html'), '<img src="missing.png">');
    expect((await easel(['deploy', site, '--canvas', created.id], env)).code).toBe(0);
    const listed = await easel(['versions', '--canvas', created.slug], env);
    expect(listed.code).toBe(0);
    const [header, newest] = listed.stdout.split('\n');
    expect(header).toMatch(/ WARNINGS$/);
    expect(newest).toMatch(/^\*2 .* 1$/);
    expect(listed.stdout).toContain(
      "version 2 warned:\n  index.html refers to missing.png, not in this deploy: those requests will answer 404\n(easel versions --json has every version's warnings)\n",
    );
    // A preview is said to be one, as the dashboard says it.
    await Bun.write(join(site, 'index.html'), '<h1>next</h1>');
    expect((await easel(['deploy', site, '--canvas', created.id, '--preview'], env)).code).toBe(0);
    const withPreview = (await easel(['versions', '--canvas', created.slug], env)).stdout.split('\n');
    expect(withPreview[1]).toMatch(/^ 3 · preview /);
    expect(withPreview[2]).toMatch(/^\*2 /);
    // Someone else's canvas is not theirs to deploy: the same 404 the API gives.
    const other = await listening.signIn('other@example.com');
    const theirs = await body(await listening.request('/api/canvases', { method: 'POST', cookie: other, json: { title: 'Theirs' } }));
    const refused = await easel(['deploy', site, '--canvas', theirs.id], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('NOT_FOUND');
  });
});
