// passes: embedded — static source check
// Issue 37 (a small kernel), checked on the source under src/:
// - a store is built once, by the feature (or the context) that owns it, and
//   handed to whoever reads it; views, routes and other services do not build
//   their own copy (`new VersionStore(ctx.sql)` stood in five places).
// - the features moved to the kernel's shape (deploy, webhooks, canvas data,
//   drafts, gallery) take a named deps interface or the few context fields
//   they read (a Pick), never the whole AppContext.
import { Glob } from 'bun';
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..');
const files = [...new Glob('src/**/*.ts').scanSync(ROOT)].sort();
const texts = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));

/** Every store class of ours (`export class …Store`). */
const stores = [...new Set(files.flatMap((f) => [...texts.get(f)!.matchAll(/export class (\w+Store)\b/g)].map((m) => m[1]!)))].sort();

/** The files that construct `name`. */
const builders = (name: string) => files.filter((f) => new RegExp(`\\bnew ${name}\\(`).test(texts.get(f)!));

describe('stores are built once', () => {
  test('the scan sees the stores (a scan that finds nothing would pass everything)', () => {
    expect(stores.length).toBeGreaterThan(15);
    expect(stores).toContain('VersionStore');
    expect(builders('VersionStore').length).toBeGreaterThan(0);
  });

  test('VersionStore is built by the deploy feature alone; drafts, gallery, MCP and the routes are handed it', () => {
    expect(builders('VersionStore')).toEqual(['src/deploy/feature.ts']);
  });

  test('every other store is built in one file', () => {
    const twice = stores.filter((s) => builders(s).length > 1);
    expect(Object.fromEntries(twice.map((s) => [s, builders(s)]))).toEqual({});
  });
});

/** Files under `dir` that take the whole context: a parameter, field or property typed `AppContext` itself (not a Pick of it). */
const wholeContext = (dir: string) => files.filter((f) => f.startsWith(dir) && /\b\w+\??: AppContext\b(?!\[)/.test(texts.get(f)!));

describe('features over named deps (deploy, webhooks, canvas data, drafts, gallery)', () => {
  test('the scan sees a whole-context parameter where one is', () => {
    expect(wholeContext('src/app.ts')).toEqual(['src/app.ts']);
  });

  test('nothing under deploy/, webhooks/ or canvas-data/ takes the whole context', () => {
    expect(['src/deploy/', 'src/webhooks/', 'src/canvas-data/'].flatMap(wholeContext)).toEqual([]);
  });

  test("drafts and gallery, handed the deploy feature's versions, take named deps too", () => {
    expect(wholeContext('src/drafts/service.ts')).toEqual([]);
    expect(wholeContext('src/gallery/service.ts')).toEqual([]);
  });

  test('the Deploy API key routes and the staged-upload routes are handed the deploy feature, not the context', () => {
    for (const f of ['src/deploy/routes.ts', 'src/deploy/upload/routes.ts']) expect(texts.get(f)!).not.toMatch(/context\.ts'/);
  });
});

describe('the context holds no feature parts', () => {
  test("src/context.ts imports nothing of the deploy or webhooks features (the ZIP deploy slots are the deploy feature's)", () => {
    const imported = [...texts.get('src/context.ts')!.matchAll(/from '\.\/([^']+)'/g)].map((m) => m[1]!);
    expect(imported).toContain('blobs/store.ts');
    expect(imported.filter((p) => p.startsWith('deploy/') || p.startsWith('webhooks/'))).toEqual([]);
  });
});
