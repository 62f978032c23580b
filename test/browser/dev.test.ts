// passes: embedded — Chromium journeys; the API suites run their routes in the s3 and cluster passes
// `easel dev` in Chromium (issue 22 item 3): a folder served as a canvas with
// the SDK and the runtime API (KV, realtime through the front server), signed
// in without a form, and the page reloading itself when a file changes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import type { Browser, BrowserContext } from 'playwright-core';
import { FROM_SOURCE, ROOT } from '../spawn.ts';
import { closeBrowserSuite, launchChromium } from './helpers.ts';

let browser: Browser;
const contexts: BrowserContext[] = [];
let dir: string;
let proc: Subprocess<'ignore', 'pipe', 'pipe'>;
let url: string;
let output = '';
/** Resolves when the dev server's stderr has printed a line matching `pattern` (its signal for a redeploy). */
let printed: (pattern: RegExp) => Promise<void>;

const page = (title: string) => `<!doctype html><html><head><title>dev</title></head><body>
<h1 id="title">${title}</h1><p id="kv"></p><p id="rt"></p>
<script src="/sdk/v1.js"></script>
<script>
  easel.kv.set('visits', 1).then(() => easel.kv.get('visits')).then((v) => { document.getElementById('kv').textContent = 'kv=' + v; });
  const room = easel.realtime.channel('room');
  room.subscribe((m) => { document.getElementById('rt').textContent = 'rt=' + m.data.text; })
    .then(() => { document.body.dataset.subscribed = 'yes'; });
  window.say = (text) => room.publish('say', { text });
</script></body></html>`;

beforeAll(async () => {
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), 'easel-dev-site-'));
  writeFileSync(join(dir, 'index.html'), page('first'));
  proc = Bun.spawn([...FROM_SOURCE, 'dev', dir, '--no-browser'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: dir },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  printed = (pattern) => (pattern.test(output) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve })));
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      const reader = stream.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        output += decoder.decode(value, { stream: true });
        for (const w of [...waiters]) if (w.pattern.test(output)) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
      }
    })();
  }
  await printed(/easel dev: .* at (http:\/\/localhost:\d+\/c\/dev\/)/);
  url = /at (http:\/\/localhost:\d+\/c\/dev\/)/.exec(output)![1]!;
});

afterAll(async () => {
  proc?.kill('SIGINT');
  await proc?.exited;
  await closeBrowserSuite(contexts, browser, undefined);
  rmSync(dir, { recursive: true, force: true });
});

async function open() {
  const context = await browser.newContext();
  contexts.push(context);
  const p = await context.newPage();
  await p.goto(url);
  return p;
}

describe('easel dev', () => {
  test('serves the folder as a canvas, signed in, with the SDK and KV working', async () => {
    const p = await open();
    expect(await p.locator('#title').innerText()).toBe('first');
    await p.waitForFunction(() => document.getElementById('kv')!.textContent === 'kv=1');
  });

  test('realtime passes through the front server: a message from one page reaches the other', async () => {
    const [a, b] = [await open(), await open()];
    for (const p of [a, b]) await p.waitForFunction(() => document.body.dataset.subscribed === 'yes');
    await a.evaluate(() => (window as unknown as { say: (t: string) => Promise<void> }).say('hello'));
    await b.waitForFunction(() => document.getElementById('rt')!.textContent === 'rt=hello');
  });

  test('a changed file is redeployed and the open page reloads itself', async () => {
    const p = await open();
    await p.waitForFunction(() => document.getElementById('kv')!.textContent === 'kv=1');
    const reloaded = p.waitForEvent('load');
    writeFileSync(join(dir, 'index.html'), page('second'));
    await printed(/changed index\.html: version \d+/);
    await reloaded;
    expect(await p.locator('#title').innerText()).toBe('second');
  });

  test('the process stops on Ctrl-C and removes its throwaway data', async () => {
    const dataDir = /a throwaway Easel in (\S+),/.exec(output)![1]!;
    expect(existsSync(join(dataDir, 'easel.db'))).toBe(true);
    proc.kill('SIGINT');
    expect(await proc.exited).toBe(0);
    expect(existsSync(dataDir)).toBe(false);
  });
});
