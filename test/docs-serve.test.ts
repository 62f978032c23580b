// passes: embedded — the documentation served, the same on every storage
// Issue 43: the documentation, served at /docs from the same Markdown, and no
// broken link or anchor between README.md and the pages of docs/.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative } from 'node:path';
import { DOCS_DIR, docPages } from '../src/docs/pages.ts';
import { renderPage } from '../src/docs/render.ts';
import { body, startTestApp, type TestApp } from './harness.ts';

const ROOT = join(import.meta.dir, '..');
const PAGES = [...docPages().keys()];
/** README.md and every served page, by path relative to the repository. */
const SOURCES = ['README.md', ...PAGES.map((p) => `docs/${p}.md`)];

/** Relative links of a Markdown file (not http:, mailto:, absolute paths or code). */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^([a-z]+:|\/)/.test(href));
}

/** The heading ids a file's rendering carries (the anchors a link may name). */
function anchorsOf(file: string): Set<string> {
  const html = Bun.markdown.html(readFileSync(join(ROOT, file), 'utf8'), { headings: { ids: true } });
  return new Set([...html.matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1]!));
}

describe('links in README.md and docs/', () => {
  for (const file of SOURCES) {
    test(`${file}: every relative link names a file that exists, and its anchor a heading there`, () => {
      const broken: string[] = [];
      for (const href of relativeLinks(readFileSync(join(ROOT, file), 'utf8'))) {
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path === '' ? file : normalize(join(dirname(file), path));
        let anchors: Set<string>;
        try {
          anchors = anchorsOf(target);
        } catch {
          broken.push(`${href} (no file ${target})`);
          continue;
        }
        if (anchor !== undefined && !anchors.has(anchor)) broken.push(`${href} (no heading #${anchor} in ${target})`);
      }
      expect(broken).toEqual([]);
    });
  }

  test('README.md links to every page of docs/', () => {
    const linked = new Set(relativeLinks(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((href) => href.split('#')[0]));
    expect(PAGES.map((p) => `docs/${p}.md`).filter((p) => !linked.has(p))).toEqual([]);
  });

  test('a link to a missing page or heading is caught', () => {
    expect(relativeLinks('see [a](nope.md#x), [b](https://x.example/), `[c](code.md)`')).toEqual(['nope.md#x']);
    expect(anchorsOf('docs/scale-out.md').has('blobs-on-s3')).toBe(true);
    expect(() => anchorsOf('docs/nope.md')).toThrow();
  });
});

describe('/docs', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  test('every page is reachable from /docs by its links, and renders 200 under the dashboard CSP', async () => {
    const seen = new Set<string>();
    const queue = ['/docs'];
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      const res = await app.request(path);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 200, 'text/html; charset=utf-8']);
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'; style-src 'self'");
      const html = await res.text();
      expect(html).not.toContain('<script');
      expect(html).not.toContain('style=');
      for (const m of html.matchAll(/href="(\/docs[^"#]*)/g)) queue.push(m[1]!);
    }
    expect([...seen].sort()).toEqual(['/docs', ...PAGES.filter((p) => p !== 'README').map((p) => `/docs/${p}`)].sort());
  });

  test('a page is the Markdown rendered: headings carry ids, links between pages become /docs addresses', async () => {
    const html = await (await app.request('/docs/configuration')).text();
    expect(html).toContain('<h1 id="configuration-reference">Configuration reference</h1>');
    expect(html).toContain('<code>EASEL_DATA_DIR</code>');
    expect(html).toContain('href="/docs/security"');
    expect(html).not.toContain('config-table:begin');
  });

  test('an unknown page is 404 NOT_FOUND; docs/drafts is never served', async () => {
    for (const path of ['/docs/nope', '/docs/drafts', '/docs/drafts/issue-1-x', '/docs/..%2FREADME', '/docs/operate.md']) {
      const res = await app.request(path);
      expect([path, res.status, (await body(res)).code]).toEqual([path, 404, 'NOT_FOUND']);
    }
  });

  test('the pages are the top level of docs/ only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'easel-docs-'));
    mkdirSync(join(dir, 'drafts'));
    writeFileSync(join(dir, 'README.md'), '# Index');
    writeFileSync(join(dir, 'page.md'), '# Page');
    writeFileSync(join(dir, 'drafts/issue-9-x.md'), '# Draft');
    writeFileSync(join(dir, 'notes.txt'), 'not a page');
    expect([...docPages(dir).keys()].sort()).toEqual(['README', 'page']);
    expect(relative(ROOT, DOCS_DIR)).toBe('docs');
  });

  test('raw HTML in the Markdown is shown as text, never markup', () => {
    const html = renderPage('# T\n\n<script>alert(1)</script>\n\nand <img src=x onerror=alert(1)> inline\n');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
