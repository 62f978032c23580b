// passes: embedded — static source check
// Issue 37 (a small kernel), checked on the source under src/:
// - a store is built once, by the feature (or the context) that owns it, and
//   handed to whoever reads it; views, routes and other services do not build
//   their own copy (`new VersionStore(ctx.sql)` stood in five places).
// - the context (AppContext) is infrastructure only; the foundation's stores
//   (people, canvases, audit, settings, Connection profiles) are built by
//   src/foundation.ts, every other feature's in createApp.
// - nothing but the composition takes the whole context or the whole Core: a
//   part names what it uses (a Pick, or a named deps interface).
// - a feature's rules are one class over a named deps interface, built once
//   in createApp, and its routes are handed that service, not the context.
import { Glob } from 'bun';
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

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

/** Files under `dir` that take the whole context: a parameter, field or property typed `AppContext` or `Core` itself (not a Pick of it). */
const wholeContext = (dir: string) =>
  files.filter((f) => f.startsWith(dir) && /\b\w+\??: (AppContext|Core)\b(?![[\w])/.test(texts.get(f)!));

/** Where the parts are put together: they alone hold the whole Core. */
const COMPOSITION = ['src/app.ts', 'src/foundation.ts', 'src/server/listener.ts'];

describe('parts name what they use', () => {
  test('the scan sees a whole-context parameter where one is', () => {
    expect(wholeContext('src/app.ts')).toEqual(['src/app.ts']);
    expect(wholeContext('src/server/listener.ts')).toEqual(['src/server/listener.ts']);
  });

  test('nothing outside the composition takes the whole context or the whole Core', () => {
    expect(wholeContext('src/').filter((f) => !COMPOSITION.includes(f))).toEqual([]);
  });

  test('the Deploy API key routes and the staged-upload routes are handed the deploy feature, not the context', () => {
    for (const f of ['src/deploy/routes.ts', 'src/deploy/upload/routes.ts']) expect(texts.get(f)!).not.toMatch(/context\.ts'/);
  });
});

/** The fields of `interface AppContext` in src/context.ts. */
function contextFields(): string[] {
  const text = texts.get('src/context.ts')!;
  const body = text.slice(
    text.indexOf('export interface AppContext {'),
    text.indexOf('\n}\n', text.indexOf('export interface AppContext {')),
  );
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]!).sort();
}

describe('the context is infrastructure only', () => {
  test('AppContext holds config, storage, blobs, log, clock, timers, limits, events and the node id, and no feature store', () => {
    expect(contextFields()).toEqual(
      ['blobGc', 'blobs', 'config', 'db', 'events', 'limiter', 'log', 'nodeId', 'now', 'rateLimits', 'scheduler', 'sql', 'version'].sort(),
    );
  });

  test("src/context.ts imports no feature: only the kernel's own modules", () => {
    const imported = [...texts.get('src/context.ts')!.matchAll(/from '\.\/([^']+)'/g)].map((m) => m[1]!.split('/')[0]!);
    expect(imported).toContain('blobs');
    const kernel = ['blobs', 'build-info.ts', 'clock.ts', 'config.ts', 'db', 'events.ts', 'ids.ts', 'log.ts', 'ratelimit'];
    expect(imported.filter((p) => !kernel.includes(p))).toEqual([]);
  });

  test('the foundation builds its stores once: people in the identity feature, the rest in src/foundation.ts', () => {
    for (const store of ['UserStore', 'SessionStore', 'GuestStore', 'TokenStore']) expect(builders(store)).toEqual(['src/auth/feature.ts']);
    for (const store of ['CanvasStore', 'ConnectionStore']) expect(builders(store)).toEqual(['src/foundation.ts']);
    expect(builders('AuditLog')).toEqual(['src/foundation.ts']);
    expect(builders('SettingsService')).toEqual(['src/foundation.ts']);
  });
});

/**
 * Issue 37: a feature's rules are one class over a named deps interface,
 * built once in createApp; its route builder is handed that service (its
 * first parameter) and imports nothing but types from the service's files.
 */
const SERVICE_ROUTES = [
  {
    routes: 'src/canvases/routes.ts',
    builder: 'canvasRoutes',
    service: 'CanvasService',
    /** Other parts handed the same service. */
    alsoHanded: ['src/mcp/tools.ts', 'src/authoring/service.ts', 'src/gallery/service.ts'],
    modules: ['src/canvases/service.ts', 'src/canvases/members.ts', 'src/canvases/ownership.ts', 'src/canvases/capabilities.ts'],
    retired: [
      'createCanvas',
      'listCanvases',
      'getCanvas',
      'updateCanvas',
      'checkAccessGates',
      'regenerateKey',
      'setArchived',
      'deleteCanvas',
      'listMembers',
      'putMember',
      'removeMember',
      'transferOwnership',
      'setCapabilities',
    ],
  },
  {
    routes: 'src/connections/admin-routes.ts',
    builder: 'connectionAdminRoutes',
    service: 'ConnectionProfiles',
    alsoHanded: [],
    modules: ['src/connections/profiles.ts'],
    retired: [
      'profileView',
      'listProfiles',
      'getProfile',
      'createProfile',
      'updateProfile',
      'deleteProfile',
      'grantProfile',
      'revokeProfile',
      'grantsOfCanvas',
    ],
  },
  {
    routes: 'src/admin/routes.ts',
    builder: 'adminRoutes',
    service: 'AdminService',
    alsoHanded: [],
    modules: ['src/admin/service.ts'],
    retired: ['adminUserView', 'getUser', 'updateUser', 'setCanvasDisabled', 'updateSettings'],
  },
];

/** The type of `builder`'s first parameter in `file`. */
function firstParameterType(file: string, builder: string): string | null {
  const m = texts.get(file)!.match(new RegExp(`export function ${builder}\\(\\s*\\w+: ([\\w<>'| ,]+?),`));
  return m ? m[1]! : null;
}

/** What `file` imports as values (not `import type`) from `module`. */
function valueImports(file: string, module: string): string[] {
  const text = texts.get(file)!;
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)import (type )?\{([^}]*)\} from '(\.{1,2}\/[^']+)'/g)) {
    if (m[1] || normalize(join(dirname(file), m[3]!)) !== module) continue;
    out.push(
      ...m[2]!
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '' && !s.startsWith('type ')),
    );
  }
  return out;
}

describe('routes receive services, not the context', () => {
  test('the scan reads a first parameter and a value import where they are', () => {
    expect(firstParameterType('src/deploy/routes.ts', 'deployRoutes')).toBe('AuthKinds');
    expect(valueImports('src/app.ts', 'src/canvases/routes.ts')).toEqual(['canvasRoutes']);
  });

  for (const family of SERVICE_ROUTES) {
    test(`${family.builder} is handed ${family.service} first`, () => {
      expect(firstParameterType(family.routes, family.builder)).toBe(family.service);
    });

    test(`${family.routes} and the other parts handed ${family.service} import only types from its files`, () => {
      for (const file of [family.routes, ...family.alsoHanded])
        for (const module of family.modules) expect([file, module, valueImports(file, module)]).toEqual([file, module, []]);
    });

    test(`the free functions ${family.service} replaced are gone from src/`, () => {
      const exported = (name: string) => files.filter((f) => new RegExp(`export (async )?function ${name}\\b`).test(texts.get(f)!));
      expect(Object.fromEntries(family.retired.map((n) => [n, exported(n)]).filter(([, where]) => where!.length > 0))).toEqual({});
    });

    test(`${family.service} is built once, in createApp`, () => {
      expect(builders(family.service)).toEqual(['src/app.ts']);
    });
  }
});
