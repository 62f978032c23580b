import type { BuildConfig } from 'bun';
import { join } from 'node:path';
import { VERSION } from '../context.ts';
import { embeddedPath, isCompiled } from '../embedded.ts';
import { sha256Hex } from '../ids.ts';

/** Source locations, relative to this file in the working tree. */
export const SDK_ENTRY = join(import.meta.dir, '../../sdk/index.ts');
export const SDK_TYPES = join(import.meta.dir, '../../sdk/v1.d.ts');

/** One servable file: its text and a strong ETag. */
export interface SdkAsset {
  body: string;
  etag: string;
}

/** How the SDK is bundled, shared by build.ts and the from-source path so both give the same bytes. */
export function sdkBuildConfig(entry: string = SDK_ENTRY): BuildConfig {
  return {
    entrypoints: [entry],
    target: 'browser',
    // A classic <script src> must not see `export`.
    format: 'iife',
    minify: true,
    define: { __EASEL_VERSION__: JSON.stringify(VERSION) },
  };
}

/** Bundles the SDK in memory; throws with the bundler's messages on failure. */
export async function bundleSdk(entry: string = SDK_ENTRY): Promise<string> {
  const result = await Bun.build({ ...sdkBuildConfig(entry), throw: false });
  const output = result.outputs.find((o) => o.kind === 'entry-point');
  if (!result.success || !output) throw new Error(result.logs.map((l) => l.message).join('; ') || 'no output');
  return output.text();
}

function asset(body: string): SdkAsset {
  return { body, etag: `"${sha256Hex(body).slice(0, 32)}"` };
}

export interface SdkBundleOptions {
  entry?: string;
  types?: string;
  onError?: (what: string, err: unknown) => void;
}

/**
 * The SDK bundle and its types, loaded once and kept in memory. Inside the
 * binary they come from the embedded files; from source the bundle is built
 * with Bun.build on first use. Null means "not built" (the route's 503); a
 * failure is not retried per request (restart after fixing the SDK).
 */
export class SdkBundle {
  private jsAsset: Promise<SdkAsset | null> | null = null;
  private typesAsset: Promise<SdkAsset | null> | null = null;

  constructor(private readonly options: SdkBundleOptions = {}) {}

  js(): Promise<SdkAsset | null> {
    this.jsAsset ??= this.load('bundle', async () => {
      if (isCompiled()) return readEmbedded('sdk/v1.js');
      return bundleSdk(this.options.entry ?? SDK_ENTRY);
    });
    return this.jsAsset;
  }

  types(): Promise<SdkAsset | null> {
    this.typesAsset ??= this.load('types', async () => {
      if (isCompiled()) return readEmbedded('sdk/v1.d.ts');
      return Bun.file(this.options.types ?? SDK_TYPES).text();
    });
    return this.typesAsset;
  }

  private async load(what: string, read: () => Promise<string>): Promise<SdkAsset | null> {
    try {
      return asset(await read());
    } catch (err) {
      this.options.onError?.(what, err);
      return null;
    }
  }
}

async function readEmbedded(name: string): Promise<string> {
  const path = embeddedPath(name);
  if (!path) throw new Error(`${name} is not embedded in this binary`);
  return Bun.file(path).text();
}
