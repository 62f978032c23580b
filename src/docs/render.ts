import { INDEX_PAGE } from './pages.ts';

/**
 * One page's Markdown as a whole HTML document. Raw HTML in the Markdown is
 * shown as text, never markup (the pages are ours, but the CSP stays strict
 * and nothing in them can become script); links between pages (`sdk.md#x`)
 * become their /docs addresses.
 */
export function renderPage(markdown: string): string {
  // Comments are for whoever edits the page (e.g. the generated table's markers).
  const source = markdown.replace(/<!--[\s\S]*?-->\n?/g, '');
  const body = Bun.markdown
    .html(source, { noHtmlBlocks: true, noHtmlSpans: true, headings: { ids: true } })
    .replace(/href="([^"]*)"/g, (_, href: string) => `href="${Bun.escapeHTML(docsHref(unescape(href)))}"`);
  const title = /^#\s+(.+)$/m.exec(source)?.[1] ?? 'Easel documentation';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${Bun.escapeHTML(title.replace(/`/g, ''))} · Easel</title>
    <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
    <link rel="stylesheet" href="/assets/style.css" />
    <link rel="stylesheet" href="/assets/docs.css" />
  </head>
  <body>
    <header><h1><a href="/docs">Easel documentation</a></h1><a href="/">Dashboard</a></header>
    <main class="docs">
${body}
    </main>
  </body>
</html>
`;
}

/** A link as the served page needs it: `x.md#a` → `/docs/x#a`, the index → `/docs`; others as written. */
export function docsHref(href: string): string {
  const match = /^(?:\.\/)?([a-z0-9][a-z0-9-]*|README)\.md(#.*)?$/.exec(href);
  if (!match) return href;
  const [, page, anchor = ''] = match;
  return `${page === INDEX_PAGE ? '/docs' : `/docs/${page}`}${anchor}`;
}

function unescape(href: string): string {
  return href
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}
