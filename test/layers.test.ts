// passes: embedded — static import check
// The dependency direction of ARCHITECTURE.md ("Layers"), checked on every
// import of every file under src/ (type-only imports count: they couple too).
// An import against the direction fails here; the ones that do not hold yet
// are listed in KNOWN with a reason, and the list may only shrink.
import { Glob } from 'bun';
import { describe, expect, test } from 'bun:test';
import { dirname, join, normalize } from 'node:path';

const ROOT = join(import.meta.dir, '..');

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Relative imports and re-exports (static, type-only, dynamic), resolved to paths like `src/http/meta.ts`. */
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

const files = [...new Glob('src/**/*.ts').scanSync(ROOT)].sort();
const texts = new Map(files.map((f) => [f, require('node:fs').readFileSync(join(ROOT, f), 'utf8') as string]));
const imports: Import[] = files.flatMap((from) =>
  [...texts.get(from)!.matchAll(IMPORT)].map((m) => ({
    from,
    to: normalize(join(dirname(from), m[2] ?? m[3]!)),
    typeOnly: m[1] !== undefined,
  })),
);

/** A file that imports nothing of ours has no layer: anyone may use it (log.ts, sync-first.ts, streams/capped.ts…). */
const leaves = new Set(files.filter((f) => !imports.some((i) => i.from === f)));

/** ARCHITECTURE.md: `errors, config, http/` → `db, blobs` → `auth, policy` → `canvases` → `deploy, runtime/*, connections` → `serve, admin, mcp` → `server/, app.ts` → `main.ts, cli/`. */
const RANK: Record<string, number> = {
  'errors.ts': 0,
  'config.ts': 0,
  http: 0,
  db: 1,
  blobs: 1,
  auth: 2,
  policy: 2,
  canvases: 3,
  deploy: 4,
  runtime: 4,
  connections: 4,
  serve: 5,
  admin: 5,
  mcp: 5,
  server: 6,
  'app.ts': 6,
  'main.ts': 7,
  cli: 7,
};
const rankOf = (file: string): number | undefined => RANK[file.split('/')[1]!];

/** Route files name the macros' type (`import type { AuthKinds }`); app.ts builds them. */
const namesAuthKinds = (i: Import) => i.typeOnly && i.to === 'src/server/auth-kinds.ts';

/** Imports against the direction that hold today, each with why; fix one and delete its line. */
const KNOWN: Record<string, string> = {
  'src/auth/handoff-routes.ts -> src/runtime/isolation.ts':
    'the sign-in handoff computes a canvas origin with the runtime isolation helper',
  'src/auth/session-scope.ts -> src/canvases/store.ts': 'a canvas host session scope looks the canvas up in CanvasStore (type only)',
  'src/canvases/access-resolver.ts -> src/serve/gate-pass.ts': 'the access resolver asks whether the password gate was passed',
  'src/config.ts -> src/blobs/s3-remote.ts': 'the S3 settings type (type only)',
  'src/runtime/files/routes.ts -> src/serve/send-file.ts': 'runtime file reads answer If-None-Match with the page server matchingEtag',
};

const key = (i: Import) => `${i.from} -> ${i.to}`;

describe('layers', () => {
  test('the scan sees the code (a parser that finds nothing would pass everything)', () => {
    expect(files.length).toBeGreaterThan(200);
    expect(imports).toContainEqual({ from: 'src/server/listener.ts', to: 'src/app.ts', typeOnly: false });
    expect(imports).toContainEqual({ from: 'src/canvases/routes.ts', to: 'src/server/auth-kinds.ts', typeOnly: true });
  });

  test('src/http/ is transport only: it imports http/, errors.ts, config.ts and leaf helpers, nothing above', () => {
    const above = imports.filter(
      (i) =>
        i.from.startsWith('src/http/') &&
        !i.to.startsWith('src/http/') &&
        i.to !== 'src/errors.ts' &&
        i.to !== 'src/config.ts' &&
        !leaves.has(i.to),
    );
    expect(above.map(key)).toEqual([]);
  });

  test('dependencies point one way (ARCHITECTURE.md "Layers"); the exceptions only shrink', () => {
    const against = imports.filter((i) => {
      const [from, to] = [rankOf(i.from), rankOf(i.to)];
      return from !== undefined && to !== undefined && to > from && !leaves.has(i.to) && !namesAuthKinds(i);
    });
    expect(against.map(key).filter((k) => !(k in KNOWN))).toEqual([]);
    // A fixed exception leaves the list, so it cannot come back unnoticed.
    expect(Object.keys(KNOWN).filter((k) => !against.some((i) => key(i) === k))).toEqual([]);
  });

  test('app.ts is composed only by server/ (and started by main.ts and the CLI through it)', () => {
    const users = imports.filter((i) => i.to === 'src/app.ts').map((i) => i.from);
    expect(users.filter((f) => !f.startsWith('src/server/') && f !== 'src/main.ts' && !f.startsWith('src/cli/'))).toEqual([]);
  });

  test('src/server/ is the top: used by app.ts, main.ts and cli/, and by route files only as the AuthKinds type', () => {
    const users = imports.filter((i) => i.to.startsWith('src/server/') && !i.from.startsWith('src/server/'));
    const top = (f: string) => f === 'src/app.ts' || f === 'src/main.ts' || f.startsWith('src/cli/');
    expect(users.filter((i) => !top(i.from) && !namesAuthKinds(i)).map(key)).toEqual([]);
  });

  test('main.ts is the only reader of process.env and process.argv', () => {
    const readers = files.filter((f) => /process\.(env|argv)\b/.test(texts.get(f)!));
    expect(readers).toEqual(['src/main.ts']);
  });
});
