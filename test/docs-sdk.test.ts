// Issue 43: the Browser SDK reference is checked against the SDK's types: every
// member of the interfaces a page reaches through `easel` (the same v1.d.ts
// GET /sdk/v1.d.ts serves) is named in the SDK pages of docs/.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSdkTypes } from '../src/serve/sdk-types.ts';

const PAGES = ['sdk', 'realtime', 'ai', 'connections']
  .map((p) => readFileSync(join(import.meta.dir, `../docs/${p}.md`), 'utf8'))
  .join('\n');
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
  const types = await generateSdkTypes();
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
