// Page-serving helpers. Canvases for these suites come from the World
// (test/world.ts): made, shared and published through the API.

/** The `easel-code` meta of an Easel page. */
export function pageCode(html: string): string | null {
  return /<meta name="easel-code" content="([^"]+)">/.exec(html)?.[1] ?? null;
}
