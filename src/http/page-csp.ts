// The Content-Security-Policy of every HTML page Easel renders itself
// (sign-in, the password gate, refusals, the CLI approval): nothing loads but
// the page's own inline style and script, allowed by their hashes; no
// framing, no <base>, forms post to this origin. From a caller's policy only
// where the page may be framed and where its forms may go are taken (canvas
// pages keep their frame-ancestors; the CLI approval posts on to the CLI's
// loopback port): an operator's EASEL_CANVAS_CSP, meant for canvas files,
// never loosens (or breaks) these pages.

const BLOCKS = { style: /<style>([\s\S]*?)<\/style>/g, script: /<script>([\s\S]*?)<\/script>/g };
/**
 * Source per inline block. Refusal and gate pages (sent on every refused page
 * view) have fixed blocks, each hashed once; the dev sign-in script carries its
 * return address, so the map is bounded and past it a block is hashed anew.
 */
const sources = new Map<string, string>();
const MAX_REMEMBERED = 64;

function sourceOf(block: string): string {
  let source = sources.get(block);
  if (source === undefined) {
    source = `'sha256-${new Bun.CryptoHasher('sha256').update(block).digest('base64')}'`;
    if (sources.size < MAX_REMEMBERED) sources.set(block, source);
  }
  return source;
}

function hashesOf(body: string, tag: 'style' | 'script'): string {
  const hashes = [...body.matchAll(BLOCKS[tag])].map((m) => sourceOf(m[1]!));
  return hashes.length > 0 ? hashes.join(' ') : "'none'";
}

function parse(policy: string): Map<string, string> {
  const directives = new Map<string, string>();
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) directives.set(name.toLowerCase(), values.join(' '));
  }
  return directives;
}

const WIDENABLE = new Set(['frame-ancestors', 'form-action']);

/** The strict policy for `body`, with `given`'s frame-ancestors and form-action when it has them. */
export function pagePolicy(body: string, given: string | undefined): string {
  const policy = new Map<string, string>([
    ['default-src', "'none'"],
    ['style-src', hashesOf(body, 'style')],
    ['script-src', hashesOf(body, 'script')],
    ['img-src', "'self' data:"],
    ['connect-src', "'self'"],
    ['form-action', "'self'"],
    ['frame-ancestors', "'none'"],
    ['base-uri', "'none'"],
  ]);
  if (given) for (const [name, value] of parse(given)) if (WIDENABLE.has(name)) policy.set(name, value);
  return [...policy].map(([name, value]) => `${name} ${value}`.trim()).join('; ');
}
