// Issue 43: the Browser SDK reference is checked against the SDK's types: every
// member of the interfaces a page reaches through `easel` (sdk/v1.d.ts, what
// GET /sdk/v1.d.ts serves; test/sdk-types.test.ts keeps it what the sources generate) is named in the SDK pages of docs/, and every
// JavaScript example there type-checks against those types (strict, as a
// module of a page; test/browser/docs-sdk.test.ts runs them in Chromium).
import { expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { SDK_TYPES } from '../src/serve/sdk-bundle.ts';
import { SDK_PAGES, sdkExamples } from './docs-sdk-examples.ts';

const TYPES = readFileSync(SDK_TYPES, 'utf8');
const PAGES = SDK_PAGES.map((p) => readFileSync(join(import.meta.dir, `../docs/${p}.md`), 'utf8')).join('\n');
const INTERFACES = [
  'Easel',
  'KvScope',
  'Files',
  'AiApi',
  'Realtime',
  'Channel',
  'ConnectionsApi',
  'Collection',
  'Submissions',
  'CanvasesApi',
];

/** The member names of `name` in the declarations (methods and properties, one per line at two spaces). */
function membersOf(types: string, name: string): string[] {
  const body = new RegExp(`interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(types)?.[1];
  if (body === undefined) throw new Error(`v1.d.ts has no interface ${name}`);
  return [...body.matchAll(/^ {2}(?:readonly )?([A-Za-z]+)[(?:<]/gm)].map((m) => m[1]!);
}

/** Named as code: `easel.kv.get(`, `.get`, `` `get` ``, `get(`. */
const named = (docs: string, member: string) => new RegExp(`[.\`]${member}\\b|\\b${member}\\(`).test(docs);

test('every member of the SDK the types declare is named in docs/sdk.md (or the realtime, AI and Connections pages)', async () => {
  const types = TYPES;
  const undocumented = INTERFACES.flatMap((i) => membersOf(types, i).map((m) => `${i}.${m}`)).filter(
    (qualified) => !named(PAGES, qualified.split('.')[1]!),
  );
  expect(undocumented).toEqual([]);
  expect(membersOf(types, 'Easel').length).toBeGreaterThan(10);
});

test('a member the pages do not name is caught', () => {
  expect(named('`easel.kv.get(key)`', 'get')).toBe(true);
  expect(named('`easel.kv.get(key)`', 'getAll')).toBe(false);
  expect(() => membersOf('interface A {\n  x(): void;\n}', 'B')).toThrow('no interface B');
});

/** An example that misuses the SDK twice: the check must name both. */
const MISUSE = { name: 'misuse', code: "await easel.kv.sett('draft', 1);\nawait easel.ai.chat([{ role: 'robot', content: 'x' }], {});\n" };

/**
 * TypeScript's complaints about each example, checked as JavaScript modules
 * of a page that loaded the SDK, in one program (the DOM's types take seconds
 * to load): example name → its errors.
 */
function typeErrors(examples: { name: string; code: string }[]): Map<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'easel-docs-sdk-'));
  try {
    writeFileSync(join(dir, 'v1.d.ts'), TYPES);
    // `export {}` makes each a module: the examples await at the top level, as a <script type="module"> does.
    const files = examples.map((e, i) => {
      const file = join(dir, `example-${i}.js`);
      writeFileSync(file, `export {};\n${e.code}`);
      return file;
    });
    const program = ts.createProgram([join(dir, 'v1.d.ts'), ...files], {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: [],
    });
    const errors = new Map(examples.map((e) => [e.name, [] as string[]]));
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const at = d.file ? files.indexOf(d.file.fileName) : -1;
      const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
      // Line 1 is the `export {}` added above: the example's own lines count from 1.
      if (at >= 0) errors.get(examples[at]!.name)!.push(`line ${d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line}: ${text}`);
      else errors.set('(types)', [...(errors.get('(types)') ?? []), text]);
    }
    return errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let checked: Map<string, string[]> | undefined;
const check = () => (checked ??= typeErrors([...sdkExamples(), MISUSE]));

test("the SDK pages' JavaScript examples type-check against v1.d.ts", () => {
  const examples = sdkExamples().map((e) => e.name);
  expect(examples).toEqual(['docs/sdk.md#1', 'docs/sdk.md#2', 'docs/ai.md#1']);
  const errors = check();
  expect(Object.fromEntries([...errors].filter(([name]) => name !== MISUSE.name))).toEqual(
    Object.fromEntries(examples.map((name) => [name, []])),
  );
}, 60_000);

test('an example that misuses the SDK is caught', () => {
  expect(check().get(MISUSE.name)).toEqual([
    expect.stringContaining("line 1: Property 'sett' does not exist"),
    expect.stringContaining('line 2: '),
  ]);
}, 60_000);
