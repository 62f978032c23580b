// The "browser" the documentation examples run with (test/docs-examples.test.ts
// puts it on PATH as xdg-open, which the CLI opens URLs with). It is a person
// signed in (dev sign-in) as DOCS_BROWSER_EMAIL: an `easel login` approval
// page gets its Allow clicked, as that person would, through the real routes
// (GET /auth/cli, POST /auth/cli, then the CLI's loopback callback); any other
// URL is fetched, as opening it would. What it did goes to $HOME/browser.log.
// Should the approval fail, it tells the waiting CLI so (error=…), so the
// example fails at once instead of waiting out the CLI's five minutes.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

const url = new URL(process.argv[2] ?? '');
const log = (line: string) => appendFileSync(join(process.env.HOME ?? '.', 'browser.log'), `${line}\n`);

async function signIn(origin: string): Promise<string> {
  const res = await fetch(`${origin}/auth/dev/login`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ email: process.env.DOCS_BROWSER_EMAIL ?? 'me@example.com' }),
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (!res.ok || !cookie) throw new Error(`dev sign-in: ${res.status}`);
  return cookie;
}

async function approve(cookie: string): Promise<void> {
  const page = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  if (page.status !== 200 || !(await page.text()).includes('id="allow"')) throw new Error(`approval page: ${page.status}`);
  const form = new URLSearchParams(url.search);
  form.set('decision', 'allow');
  const allowed = await fetch(new URL('/auth/cli', url), {
    method: 'POST',
    headers: { cookie, origin: url.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
  const back = allowed.headers.get('location');
  if (allowed.status !== 303 || !back) throw new Error(`approve: ${allowed.status}`);
  log(`approved easel login: ${(await fetch(back)).status}`);
}

try {
  const cookie = await signIn(url.origin);
  if (url.pathname === '/auth/cli') await approve(cookie);
  else log(`opened ${url.href}: ${(await fetch(url, { headers: { cookie } })).status}`);
} catch (err) {
  log(`failed on ${url.href}: ${String(err)}`);
  const port = url.searchParams.get('port');
  if (url.pathname === '/auth/cli' && port) {
    const back = new URL(`http://127.0.0.1:${port}/callback`);
    back.search = new URLSearchParams({ state: url.searchParams.get('state') ?? '', error: 'docs-browser' }).toString();
    await fetch(back).catch(() => undefined);
  }
  process.exitCode = 1;
}
