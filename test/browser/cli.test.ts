// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// The CLI end to end (issue 22 item 2): `easel login` through the loopback
// handoff, approved in Chromium; then link, deploy without a key, versions,
// rollback, as real processes against a real server.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { dashboardOrigin } from '../../src/http/cross-site.ts';
import { startTestApp, type TestApp } from '../harness.ts';
import { FROM_SOURCE, ROOT, runToExit } from '../spawn.ts';
import { closeBrowserSuite, launchChromium } from './helpers.ts';

let app: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
let work: string;
let origin: string;

beforeAll(async () => {
  app = await startTestApp({ listen: true, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
  browser = await launchChromium();
  work = mkdtempSync(join(tmpdir(), 'easel-cli-'));
  origin = dashboardOrigin(app.ctx.config);
});
afterAll(async () => {
  await closeBrowserSuite(contexts, browser, app);
  rmSync(work, { recursive: true, force: true });
});

/** `easel login` as a process: resolves with the approval URL it prints, and its exit. */
function startLogin(configHome: string) {
  const proc = Bun.spawn([...FROM_SOURCE, 'login', origin, '--no-browser'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: work, XDG_CONFIG_HOME: configHome },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let stderr = '';
  const url = (async () => {
    const decoder = new TextDecoder();
    const reader = proc.stderr.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      stderr += decoder.decode(value, { stream: true });
      const m = /^\s+(http\S+\/auth\/cli\?\S+)$/m.exec(stderr);
      if (m) {
        reader.releaseLock();
        return m[1]!;
      }
    }
    throw new Error(`easel login printed no URL: ${stderr}`);
  })();
  const done = (async () => ({ code: await proc.exited, stdout: await new Response(proc.stdout).text() }))();
  return { url, done };
}

async function approveInBrowser(url: string, email: string, decision: 'allow' | 'deny'): Promise<string> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(url);
  // Not signed in: the sign-in page, then back to the approval page.
  await page.fill('#email', email);
  await page.click('button');
  await page.locator(`#${decision}`).waitFor();
  expect(await page.locator('main').innerText()).toContain(email);
  await page.click(`#${decision}`);
  await page.waitForURL(/127\.0\.0\.1:\d+\/callback/);
  return page.locator('p').innerText();
}

describe('easel login through the browser, then the CLI as that person', () => {
  const config = () => join(work, 'config');
  const easel = (args: string[], cwd = work, extra: Record<string, string> = {}) =>
    runToExit({ args, cwd, env: { HOME: work, XDG_CONFIG_HOME: config(), ...extra } });

  test('cancel in the browser: the CLI says so and stores nothing', async () => {
    const login = startLogin(join(work, 'cancelled'));
    expect(await approveInBrowser(await login.url, 'cli-user@example.com', 'deny')).toContain('Sign-in cancelled');
    const { code } = await login.done;
    expect(code).toBe(1);
    expect(() => statSync(join(work, 'cancelled', 'easel', 'config.json'))).toThrow();
  });

  test('approve: a token stored for the user alone, whoami names them, the token is listed in the dashboard', async () => {
    const login = startLogin(config());
    expect(await approveInBrowser(await login.url, 'cli-user@example.com', 'allow')).toContain('The Easel CLI is signed in');
    const { code, stdout } = await login.done;
    expect(code).toBe(0);
    expect(stdout).toContain(`signed in to ${origin} as cli-user@example.com`);
    const file = join(config(), 'easel', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored.current).toBe(origin);
    expect(stored.instances[origin].token).toMatch(/^easel_pat_/);
    const who = await easel(['whoami', '--json']);
    expect(JSON.parse(who.stdout)).toMatchObject({ instance: origin, email: 'cli-user@example.com' });
    const tokens = await fetch(`${app.base}/api/tokens`, { headers: { authorization: `Bearer ${stored.instances[origin].token}` } });
    expect((await tokens.json()).tokens.map((t: { name: string }) => t.name)[0]).toStartWith('easel CLI on ');
  });

  test('create --link, deploy without a key, versions, rollback, unpublish, canvases', async () => {
    const site = mkdtempSync(join(work, 'site-'));
    writeFileSync(join(site, 'index.html'), '<h1>one</h1>');
    const created = await easel(['create', 'CLI Site', '--link', '--json'], site);
    expect(created.code).toBe(0);
    const canvas = JSON.parse(created.stdout);
    expect(JSON.parse(readFileSync(join(site, '.easel.json'), 'utf8'))).toEqual({
      instance: origin,
      canvasId: canvas.id,
      slug: canvas.slug,
    });

    const first = await easel(['deploy', '--json'], site);
    expect({ code: first.code, stderr: first.stderr }).toMatchObject({ code: 0 });
    expect(JSON.parse(first.stdout)).toMatchObject({ outcome: 'published', version: 1 });
    writeFileSync(join(site, 'index.html'), '<h1>two</h1>');
    expect((await easel(['deploy'], site)).code).toBe(0);
    // The deploy is audited as the person, not as the canvas key.
    const audit = app.ctx
      .db!.query<{ actor_kind: string }, [string]>("SELECT actor_kind FROM audit_log WHERE canvas_id = ? AND action = 'canvas.deploy'")
      .all(canvas.id);
    expect(audit.map((a) => a.actor_kind)).toEqual(['user', 'user']);

    const versions = await easel(['versions'], site);
    expect(versions.stdout).toMatch(/^\*2 /m);
    expect(versions.stdout).toMatch(/^ 1 /m);
    const rolled = await easel(['rollback', '1', '--json'], site);
    expect(JSON.parse(rolled.stdout)).toMatchObject({ version: 1 });
    const cookie = await app.signIn('cli-user@example.com');
    expect(await (await app.request(`/c/${canvas.slug}/`, { cookie })).text()).toBe('<h1>one</h1>');
    const listed = await easel(['canvases', '--json']);
    expect(JSON.parse(listed.stdout).canvases.map((c: { id: string }) => c.id)).toContain(canvas.id);
    // By slug from anywhere, not only the linked folder.
    expect(JSON.parse((await easel(['open', '--canvas', canvas.slug, '--no-browser', '--json'])).stdout)).toEqual({
      url: canvas.url,
      opened: false,
    });
    expect((await easel(['unpublish'], site)).stdout).toContain('unpublished');
  });

  test('logout revokes the token on the server and forgets it', async () => {
    const stored = JSON.parse(readFileSync(join(config(), 'easel', 'config.json'), 'utf8'));
    const token = stored.instances[origin].token;
    const out = await easel(['logout']);
    expect(out.stdout).toContain('(token revoked)');
    expect((await fetch(`${app.base}/api/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    const after = await easel(['whoami']);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('easel whoami: NOT_SIGNED_IN: not signed in to any Easel: run easel login <instance URL>');
  });
});
