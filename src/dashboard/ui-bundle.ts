// The dashboard's scripts: TypeScript under src/dashboard/ui/ with its npm
// imports (CodeMirror), built by Bun.build. build.ts embeds the output in
// the binary; from source each is built on its first request. public/ holds
// only the page and its styles.
import type { BuildConfig } from 'bun';
import { join } from 'node:path';
import { embeddedPath, isCompiled } from '../embedded.ts';
import { sha256Hex } from '../ids.ts';

/** Served name under /assets/ → entry point. */
export const UI_BUNDLES: Readonly<Record<string, string>> = {
  /** The whole dashboard but the editor. */
  'dashboard.js': join(import.meta.dir, 'ui/app.ts'),
  /** The editor and CodeMirror, loaded when a person opens one (app.ts loadEditor). */
  'editor.js': join(import.meta.dir, 'ui/editor.ts'),
};

/** Where build.ts embeds a bundle (`dashboard/editor.js`). */
export const embeddedUiName = (name: string) => `dashboard/${name}`;

export interface UiAsset {
  body: string;
  etag: string;
}

/** One build configuration for build.ts and the from-source path, so both give the same bytes. */
export function uiBuildConfig(entry: string): BuildConfig {
  // A classic <script src>, loaded on demand: no `export` may show.
  return { entrypoints: [entry], target: 'browser', format: 'iife', minify: true };
}

export async function bundleUi(entry: string): Promise<string> {
  const result = await Bun.build({ ...uiBuildConfig(entry), throw: false });
  const output = result.outputs.find((o) => o.kind === 'entry-point');
  if (!result.success || !output) throw new Error(result.logs.map((l) => l.message).join('; ') || 'no output');
  return output.text();
}

/** The bundles, each built (or read from the binary) once and kept in memory; null when it could not be built. */
export class UiBundles {
  private readonly loaded = new Map<string, Promise<UiAsset | null>>();

  constructor(private readonly onError: (name: string, err: unknown) => void = () => {}) {}

  has(name: string): boolean {
    return Object.hasOwn(UI_BUNDLES, name);
  }

  get(name: string): Promise<UiAsset | null> {
    let asset = this.loaded.get(name);
    if (!asset) {
      asset = this.load(name);
      this.loaded.set(name, asset);
    }
    return asset;
  }

  private async load(name: string): Promise<UiAsset | null> {
    try {
      let body: string;
      if (isCompiled()) {
        const path = embeddedPath(embeddedUiName(name));
        if (!path) throw new Error(`${name} is not embedded in this binary`);
        body = await Bun.file(path).text();
      } else {
        body = await bundleUi(UI_BUNDLES[name]!);
      }
      return { body, etag: `"${sha256Hex(body).slice(0, 32)}"` };
    } catch (err) {
      this.onError(name, err);
      return null;
    }
  }
}
