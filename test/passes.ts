// The test passes, declared by the suites themselves. Each suite that starts
// the app says in one line which passes it runs in:
//
//   // passes: embedded, s3, cluster
//   // passes: embedded — why the other passes add nothing here
//
// `embedded` is the plain pass (SQLite, blobs on disk); `s3` runs the suite
// again with its blobs on a real S3-compatible server (EASEL_TEST_BLOBS=s3);
// `cluster` runs it against two nodes on Postgres, S3 and Redis
// (EASEL_TEST_CLUSTER=postgres). Suites that never start the app (units,
// stores tested on their own) run in the embedded pass and need no line.
//
//   bun test/passes.ts <embedded|s3|cluster> [filter …] [-- bun test options]
//
// runs `bun test` over the pass's suites (those whose path contains one of
// the filters, when given). test/passes.test.ts fails when a suite that starts
// the app (through test/harness.ts or test/spawn.ts) declares nothing.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const PASSES = ['embedded', 's3', 'cluster'] as const;
export type Pass = (typeof PASSES)[number];

const PASS_ENV: Record<Pass, Record<string, string>> = {
  embedded: {},
  s3: { EASEL_TEST_BLOBS: 's3' },
  cluster: { EASEL_TEST_CLUSTER: 'postgres', EASEL_FUZZ_RUNS: process.env.EASEL_FUZZ_RUNS ?? '100' },
};

const ROOT = resolve(import.meta.dir, '..');
// Starting the app in process (the harness) or as a server process (spawn.ts).
const STARTERS = new Set([join(ROOT, 'test', 'harness.ts'), join(ROOT, 'test', 'spawn.ts')]);
const DECLARATION = /^\/\/ passes: ([a-z0-9, ]+?)(?:\s+—\s+(.+))?$/m;

export interface Suite {
  /** Relative to the repository, as `bun test` is given it. */
  path: string;
  /** Null when the suite has no `// passes:` line. */
  passes: Pass[] | null;
  /** What the line says after its dash: why the suite sits out the other passes. */
  reason: string | null;
  startsApp: boolean;
}

export function suites(): Suite[] {
  const starts = new Map<string, boolean>();
  return listSuiteFiles(join(ROOT, 'test')).map((file) => {
    const text = readFileSync(file, 'utf8');
    return {
      path: relative(ROOT, file),
      passes: declaredPasses(text),
      reason: DECLARATION.exec(text)?.[2] ?? null,
      startsApp: reachesHarness(file, starts, new Set()),
    };
  });
}

/** The passes a suite's text declares; throws on a line naming a pass that does not exist. */
export function declaredPasses(text: string): Pass[] | null {
  const match = DECLARATION.exec(text);
  if (!match) return null;
  const named = match[1]!.split(',').map((name) => name.trim());
  for (const name of named) if (!(PASSES as readonly string[]).includes(name)) throw new Error(`unknown pass "${name}"`);
  return named as Pass[];
}

/** The suites a pass runs: declared ones, and in the embedded pass the undeclared ones that never start the app. */
export function suitesOf(pass: Pass, all: Suite[] = suites()): string[] {
  return all.filter((s) => (s.passes ? s.passes.includes(pass) : pass === 'embedded' && !s.startsApp)).map((s) => s.path);
}

function listSuiteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'fixtures' || entry.name === 'node_modules' ? [] : listSuiteFiles(path);
      return entry.name.endsWith('.test.ts') ? [path] : [];
    })
    .sort();
}

/** Whether a test file reaches a starter through the test folder's own imports. */
function reachesHarness(file: string, memo: Map<string, boolean>, visiting: Set<string>): boolean {
  if (STARTERS.has(file)) return true;
  const known = memo.get(file);
  if (known !== undefined) return known;
  if (visiting.has(file)) return false;
  visiting.add(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  let reaches = false;
  for (const match of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+\.ts)'/g)) {
    const target = resolve(dirname(file), match[1]!);
    if (target.startsWith(join(ROOT, 'test')) && reachesHarness(target, memo, visiting)) {
      reaches = true;
      break;
    }
  }
  memo.set(file, reaches);
  return reaches;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const pass = args.shift() as Pass | undefined;
  if (!pass || !(PASSES as readonly string[]).includes(pass)) {
    console.error(`usage: bun test/passes.ts <${PASSES.join('|')}> [filter …] [-- bun test options]`);
    process.exit(2);
  }
  const split = args.indexOf('--');
  const filters = split === -1 ? args : args.slice(0, split);
  const options = split === -1 ? [] : args.slice(split + 1);
  const files = suitesOf(pass).filter((path) => filters.length === 0 || filters.some((f) => path.includes(f)));
  if (files.length === 0) {
    console.error(`no suite of the ${pass} pass matches ${filters.join(' ')}`);
    process.exit(1);
  }
  // `./` makes each argument a path rather than a name filter for bun test.
  const child = Bun.spawn(['bun', 'test', '--timeout', '30000', ...options, ...files.map((f) => `./${f}`)], {
    cwd: ROOT,
    env: { ...process.env, ...PASS_ENV[pass] },
    stdio: ['inherit', 'inherit', 'inherit'],
  });
  process.exit(await child.exited);
}
