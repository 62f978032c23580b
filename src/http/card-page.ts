// The one look of every page Easel renders itself for a visitor (sign-in,
// the password gate, refusals, the CLI approval, guest links): a card on a
// quiet background, in the dashboard's colours, light or dark as the
// visitor's system is. The style is a fixed block, so page-csp.ts allows it
// by one hash. Contrast is AA in both schemes (the muted text is 5.9:1 on
// the light card, 6.4:1 on the dark one).
import { escapeHtml } from './respond.ts';

const CARD_CSS = `:root{color-scheme:light dark;--bg:#f6f5f2;--card:#fff;--text:#1f2328;--muted:#5c6670;--accent:#3b5bdb;--on-accent:#fff;--warn:#8a5a00;--danger:#b00020;--line:#d0d7de}
@media (prefers-color-scheme:dark){:root{--bg:#16181c;--card:#22262c;--text:#e6e8eb;--muted:#a9b1ba;--accent:#91a7ff;--on-accent:#10131a;--warn:#f0b45a;--danger:#ff8a8a;--line:#3a4049}}
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;margin:0;padding:1rem;background:var(--bg);color:var(--text)}
main{background:var(--card);padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0002;width:100%;max-width:24rem;overflow-wrap:anywhere}
main.wide{max-width:32rem}
h1{font-size:1.35rem;line-height:1.3;margin:0 0 .75rem}p{margin:.5rem 0}small,.muted{color:var(--muted)}
a{color:var(--accent)}
label{display:block;margin:.75rem 0 .25rem;font-size:.9rem}
input{width:100%;padding:.5rem;font:inherit;color:inherit;background:var(--card);border:1px solid var(--muted);border-radius:6px}
button{margin-top:1rem;padding:.6rem 1.2rem;font:inherit;background:var(--accent);color:var(--on-accent);border:0;border-radius:6px;cursor:pointer}
form button:only-of-type{width:100%}
button.secondary{background:transparent;color:var(--text);border:1px solid var(--muted)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.warn{font-size:.9rem;color:var(--warn)}.err{color:var(--danger);font-size:.9rem}`;

export interface CardPageParts {
  /** The tab's title; " · Easel" is added. */
  title: string;
  /** The card's HTML: every value in it already escaped by the caller. */
  body: string;
  /** A machine-readable reason, in `<meta name="easel-code">` (clients and tests branch on it, never on the prose). */
  code?: string;
  /** Extra `<head>` lines (e.g. robots). */
  head?: string;
  /** One inline script, placed after the card (page-csp.ts allows it by its hash). */
  script?: string;
  wide?: boolean;
}

export function cardPage(parts: CardPageParts): string {
  const code = parts.code ? `<meta name="easel-code" content="${escapeHtml(parts.code)}">` : '';
  const script = parts.script ? `\n<script>${parts.script}</script>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
${code}${parts.head ?? ''}<title>${escapeHtml(parts.title)} · Easel</title>
<style>
${CARD_CSS}
</style></head><body><main${parts.wide ? ' class="wide"' : ''}>
${parts.body}
</main>${script}</body></html>
`;
}
