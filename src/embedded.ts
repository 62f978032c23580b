// Files compiled into the single binary. build.ts generates an entry that
// registers them (name → `/$bunfs/…` path) before src/main.ts runs; from
// source nothing is registered and callers read the working tree instead.

let files: ReadonlyMap<string, string> | null = null;

export function registerEmbedded(map: Record<string, string>): void {
  files = new Map(Object.entries(map));
}

/** True inside the compiled binary. */
export function isCompiled(): boolean {
  return files !== null;
}

/** The embedded path of `name` (e.g. `sdk/v1.js`, `public/index.html`), or null. */
export function embeddedPath(name: string): string | null {
  return files?.get(name) ?? null;
}

/** Embedded names under a prefix (e.g. `public/`), with their paths. */
export function embeddedUnder(prefix: string): Array<[name: string, path: string]> {
  return [...(files ?? [])].filter(([name]) => name.startsWith(prefix));
}
