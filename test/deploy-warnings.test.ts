// passes: embedded, s3, cluster
// The deploy warnings for the usual mistakes (issue 22 item 4), on the ZIP
// path and the staged path alike: a wrapping folder, a root page's missing
// references, case-only collisions, each with a deploy that triggers it and
// one that does not.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { NO_INDEX_WARNING } from '../src/deploy/warnings.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { createDeployCanvas, deploy, zipOf, type DeployCanvas } from './deploy-fixtures.ts';
import { stagedDeploy } from './upload-fixtures.ts';
import { runToExit } from './spawn.ts';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let app: TestApp;
let canvas: DeployCanvas;
beforeAll(async () => {
  app = await startTestApp({ env: { EASEL_RATELIMIT_ENABLED: 'false' }, listen: true });
  canvas = await createDeployCanvas(app);
});
afterAll(() => app.close());

/** The warnings of the same files through both deploy paths (they must agree). */
async function warningsOf(files: Record<string, string>): Promise<string[]> {
  const zipped = await deploy(app, canvas, zipOf(files));
  expect(zipped.status).toBe(200);
  const staged = await stagedDeploy(app, canvas, files);
  expect(staged.status).toBe(200);
  expect(staged.body.warnings).toEqual(zipped.body.warnings);
  return zipped.body.warnings;
}

const WRAPPED = (folder: string) => `everything is inside the folder "${folder}/", so its pages are not at the canvas root`;

describe('deploy warnings for the usual mistakes', () => {
  test('a ZIP made with `zip -r site.zip mysite` names the folder and the fix', async () => {
    const warnings = await warningsOf({ 'mysite/index.html': '<h1>hi</h1>', 'mysite/app.js': '1', 'mysite/about.html': 'a' });
    expect(warnings[0]).toBe(NO_INDEX_WARNING);
    expect(warnings[1]).toStartWith(WRAPPED('mysite'));
    expect(warnings[1]).toContain('cd mysite && zip -r ../site.zip .');
    expect(warnings).toHaveLength(2);
  });

  test('a single page inside a wrapping folder is served at the root without its files: the warning says so, not that the page is missing', async () => {
    const warnings = await warningsOf({
      'mysite/index.html': '<link rel="stylesheet" href="css/a.css"><img src="logo.png">',
      'mysite/css/a.css': 'h1{}',
      'mysite/logo.png': 'png',
    });
    expect(warnings).toEqual([
      'everything is inside the folder "mysite/", so its one page, mysite/index.html, is served at the canvas root without the files it links to (they stay under mysite/): deploy the folder\'s contents instead (zip from inside it: cd mysite && zip -r ../site.zip .; or easel deploy mysite)',
    ]);
    // What a visitor meets: the page at the root, its stylesheet nowhere the page asks for it.
    const page = await app.request(`/c/${canvas.slug}/`, { cookie: canvas.ownerCookie });
    expect([page.status, await page.text()]).toEqual([200, '<link rel="stylesheet" href="css/a.css"><img src="logo.png">']);
    expect((await app.request(`/c/${canvas.slug}/css/a.css`, { cookie: canvas.ownerCookie })).status).toBe(404);
  });

  test("a folder's only page is served at the root, so its links are read from there", async () => {
    const warnings = await warningsOf({
      'docs/page.html': '<link href="style.css"><script src="app.js"></script>',
      'docs/style.css': '',
      'app.js': '',
    });
    expect(warnings).toEqual([
      'docs/page.html, served at the canvas root, refers to style.css, not in this deploy: those requests will answer 404',
    ]);
  });

  test('files in folders next to a root index.html are fine', async () => {
    expect(await warningsOf({ 'index.html': '<h1>hi</h1>', 'assets/app.js': '1' })).toEqual([]);
    expect(await warningsOf({ 'assets/index.html': '<a href="x.html">x</a>', 'docs/page.html': 'p' })).toEqual([NO_INDEX_WARNING]);
  });

  test('relative src and href targets missing from the deploy are named; URLs, anchors, root paths, scripts and comments are not', async () => {
    const page = `<!doctype html>
      <link rel="stylesheet" href="style.css?v=3">
      <script src="./js/app.js"></script>
      <script>const s = '<img src="in-script.png">';</script>
      <!-- <img src="commented.png"> -->
      <img src=images/logo%20big.png alt=logo>
      <img src='images/present.png'>
      <a href="#top">top</a> <a href="https://example.com/x.js">x</a> <a href="/root.html">r</a>
      <a href="mailto:a@b.c">m</a> <a href="docs/">docs</a> <a href="guide">guide</a> <a href="../escape.js">e</a>`;
    const warnings = await warningsOf({ 'index.html': page, 'js/app.js': '1', 'images/present.png': 'p', 'guide/index.html': 'g' });
    expect(warnings).toEqual(['index.html refers to images/logo big.png, style.css, not in this deploy: those requests will answer 404']);
    expect(await warningsOf({ 'index.html': '<script src="app.js"></script>', 'app.js': '1' })).toEqual([]);
  });

  test('more than five missing references are counted, not all named', async () => {
    const page = Array.from({ length: 8 }, (_, i) => `<img src="i${i}.png">`).join('');
    expect(await warningsOf({ 'index.html': page })).toEqual([
      'index.html refers to i0.png, i1.png, i2.png, i3.png, i4.png and 3 more, not in this deploy: those requests will answer 404',
    ]);
  });

  test('a build made for a site of its own (Vite 8 defaults: links from the host root) names the links and the fix; a relative build passes', async () => {
    // dist/index.html exactly as `npm create vite` (vanilla) then `vite build` (Vite 8.4) wrote it, and the files beside it.
    const vite = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>app</title>
    <script type="module" crossorigin src="/assets/index-CAoPt-vL.js"></script>
    <link rel="stylesheet" crossorigin href="/assets/index-CsUDhMuy.css">
  </head>
  <body>
    <div id="app"></div>
  </body>
</html>
`;
    const dist = {
      'assets/index-CAoPt-vL.js': 'js',
      'assets/index-CsUDhMuy.css': 'css',
      'assets/hero-CLDdwZDr.png': 'png',
      'favicon.svg': '<svg/>',
    };
    expect(await warningsOf({ 'index.html': vite, ...dist })).toEqual([
      `index.html links to /assets/index-CAoPt-vL.js, /assets/index-CsUDhMuy.css, /favicon.svg from the host's root, but this canvas is served under /c/${canvas.slug}/: ` +
        `the browser will not find them there. Make the links relative (assets/index-CAoPt-vL.js), e.g. with Vite's base: './' or Create React App's "homepage": "."`,
    ]);
    // The same build with \`vite build --base ./\`.
    const relative = vite.replaceAll('"/', '"./');
    expect(relative).toContain('src="./assets/index-CAoPt-vL.js"');
    expect(await warningsOf({ 'index.html': relative, ...dist })).toEqual([]);
    // A root link to what the deploy does not hold may be the host's own (a shared stylesheet): not this warning.
    expect(await warningsOf({ 'index.html': '<link rel="stylesheet" href="/shared/site.css"><a href="//cdn.example/x.js">x</a>' })).toEqual(
      [],
    );
  });

  test('a project deployed before its build (index.html loads /src/main.tsx) says to build it; in-page Babel and CDN URLs are fine', async () => {
    // index.html exactly as `npm create vite` (Vite 8.4, react-ts) writes it, with the project's sources beside it.
    const reactTs = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" type="image/svg+xml" href="/favicon.svg" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>rts</title>
  </head>
  <body>
    <div id="root"></div>
    <script type="module" src="/src/main.tsx"></script>
  </body>
</html>
`;
    const project = { 'index.html': reactTs, 'package.json': '{}', 'src/main.tsx': 'x', 'src/App.tsx': 'x', 'vite.config.ts': 'x' };
    expect(await warningsOf(project)).toEqual([
      'src/App.tsx will be served as text/plain',
      'src/main.tsx will be served as text/plain',
      'index.html loads /src/main.tsx, source the browser does not run (TypeScript, JSX, Vue or Svelte): build the app (npm run build) and deploy the folder the build writes (often dist/)',
    ]);
    // JSX compiled in the page by Babel standalone, and a CDN's TypeScript URL, run as they are.
    const inPage = '<script type="text/babel" src="app.jsx"></script><script type="module" src="https://esm.example/lib.ts"></script>';
    expect(await warningsOf({ 'index.html': inPage, 'app.jsx': 'x' })).toEqual([]);
    expect(await warningsOf({ 'index.html': '<script type="module" src="./app.vue?v=2"></script>', 'app.vue': 'x' })).toEqual([
      'app.vue will be served as text/plain',
      'index.html loads ./app.vue, source the browser does not run (TypeScript, JSX, Vue or Svelte): build the app (npm run build) and deploy the folder the build writes (often dist/)',
    ]);
  });

  test('a ZIP of a whole Node project (package.json, node_modules/) says so, and where its built site is', async () => {
    const project = {
      'package.json': '{"name":"app"}',
      'index.html': '<script type="module" src="src/main.js"></script>',
      'src/main.js': '1',
      'node_modules/vite/package.json': '{}',
      'node_modules/vite/index.js': '2',
      'dist/index.html': '<h1>built</h1>',
    };
    expect(await warningsOf(project)).toEqual([
      'this deploy is a Node project (package.json and node_modules/), not a built site: 2 file(s) of node_modules/ are published with it; deploy the contents of dist/ instead',
    ]);
    const { 'dist/index.html': _built, ...unbuilt } = project;
    expect(await warningsOf(unbuilt)).toEqual([
      'this deploy is a Node project (package.json and node_modules/), not a built site: 2 file(s) of node_modules/ are published with it; build it and deploy the folder the build writes',
    ]);
    // A package.json alone (a site that names its own tooling) is no project folder.
    expect(await warningsOf({ 'index.html': 'hi', 'package.json': '{}' })).toEqual([]);
  });

  test('a hostile root page (unclosed comments, scripts and tags over and over, near the 1 MB it is read to) is read in one pass', async () => {
    const MB = 1024 * 1024 - 64;
    const pages = {
      comments: '<!--'.repeat(MB / 4),
      scriptsNeverClosed: '<script>'.repeat(MB / 8),
      tagsNeverEnded: '<script src=a.ts '.repeat(MB / 17),
      quotesNeverClosed: '<a href="x'.repeat(MB / 10),
    };
    // Each answers as any deploy does (the old expressions took quadratic time: minutes for the first one).
    for (const [name, page] of Object.entries(pages)) {
      const res = await deploy(app, canvas, zipOf({ 'index.html': page }));
      expect([name, res.status]).toEqual([name, 200]);
    }
  }, 60_000);

  test("the versions list keeps each version's warnings, as its deploy answered them; none for a clean deploy", async () => {
    const warned = await deploy(app, canvas, zipOf({ 'index.html': '<img src="gone.png">' }));
    expect(warned.body.warnings).toEqual(['index.html refers to gone.png, not in this deploy: those requests will answer 404']);
    const clean = await stagedDeploy(app, canvas, { 'index.html': '<h1>fine</h1>' });
    expect(clean.body.warnings).toEqual([]);
    const res = await app.request(`/v1/canvases/${canvas.id}/versions`, { headers: { authorization: `Bearer ${canvas.key}` } });
    expect(res.status).toBe(200);
    const versions = (await res.json()).versions as Array<{ number: number; warnings: string[] }>;
    expect(versions.find((v) => v.number === clean.body.version)!.warnings).toEqual([]);
    expect(versions.find((v) => v.number === warned.body.version)!.warnings).toEqual(warned.body.warnings);
  });

  test('paths that differ only in case are named together', async () => {
    expect(await warningsOf({ 'index.html': 'hi', 'App.js': 'a', 'app.js': 'b', 'img/Logo.png': 'x' })).toEqual([
      'App.js and app.js differ only in case: links must match the case exactly here',
    ]);
  });

  test("`easel deploy <folder>` says it deploys the folder's contents, and prints the warnings", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'easel-warn-'));
    try {
      mkdirSync(join(dir, 'site'));
      writeFileSync(join(dir, 'site', 'index.html'), '<link href="missing.css" rel="stylesheet">');
      const run = await runToExit({
        args: ['deploy', join(dir, 'site') + '/', '--canvas', canvas.id, '--api', app.base],
        env: { EASEL_CANVAS_KEY: canvas.key },
      });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`deploying the contents of ${join(dir, 'site')}/ (1 file(s)`);
      expect(run.stdout).toContain('warning: index.html refers to missing.css, not in this deploy');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('on canvas hosts of their own (subdomain mode)', () => {
  let sub: TestApp;
  let subCanvas: DeployCanvas;
  beforeAll(async () => {
    sub = await startTestApp({
      env: { EASEL_URL_MODE: 'subdomain', EASEL_BASE_URL: 'http://easel.test', EASEL_RATELIMIT_ENABLED: 'false' },
    });
    subCanvas = await createDeployCanvas(sub);
  });
  afterAll(() => sub.close());

  test('links from the host root find the canvas, so they are not warned about', async () => {
    const res = await deploy(sub, subCanvas, zipOf({ 'index.html': '<script src="/assets/app.js"></script>', 'assets/app.js': '1' }));
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([]);
  });
});

describe('on an https address', () => {
  let secure: TestApp;
  let secureCanvas: DeployCanvas;
  beforeAll(async () => {
    secure = await startTestApp({ env: { EASEL_BASE_URL: 'https://easel.test', EASEL_RATELIMIT_ENABLED: 'false' } });
    secureCanvas = await createDeployCanvas(secure);
  });
  afterAll(() => secure.close());

  const warningsOn = async (files: Record<string, string>) => {
    const res = await deploy(secure, secureCanvas, zipOf(files));
    expect(res.status).toBe(200);
    return res.body.warnings as string[];
  };

  test('scripts, stylesheets and frames over plain HTTP are named (browsers block them); images, links and https are not', async () => {
    const page = `<script src="http://code.jquery.com/jquery-1.12.4.min.js"></script>
      <link rel="stylesheet" href="http://fonts.example/css?family=Inter">
      <link rel="icon" href="http://cdn.example/favicon.ico">
      <iframe src="http://maps.example/embed"></iframe>
      <img src="http://cdn.example/logo.png"> <a href="http://example.com/">a link</a>
      <script src="https://cdn.example/ok.js"></script>`;
    expect(await warningsOn({ 'index.html': page })).toEqual([
      "index.html loads http://code.jquery.com/jquery-1.12.4.min.js, http://fonts.example/css?family=Inter, http://maps.example/embed over plain HTTP: browsers block plain-HTTP scripts, styles and frames on this canvas's https address (mixed content); use https:// (or keep a copy in the deploy)",
    ]);
    expect(await warningsOn({ 'index.html': '<script src="https://cdn.example/ok.js"></script>' })).toEqual([]);
  });

  test('a page of unclosed link and iframe tags near the 1 MB read is scanned in one pass', async () => {
    const MB = 1024 * 1024 - 64;
    for (const page of ['<link rel=stylesheet href=http://x '.repeat(MB / 35), '<iframe src=http://x '.repeat(MB / 22)]) {
      expect((await deploy(secure, secureCanvas, zipOf({ 'index.html': page }))).status).toBe(200);
    }
  }, 60_000);
});
