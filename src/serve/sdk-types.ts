// sdk/v1.d.ts, generated from the SDK's sources: sdk/public-types.ts lists
// what is published, TypeScript's declaration emit (bundled into one file by
// dts-bundle-generator) writes it, Prettier formats it. Build-time only (the
// binary cannot run the compiler): build.ts embeds a fresh copy, the
// committed sdk/v1.d.ts serves runs from source, and test/sdk-types.test.ts
// fails when that copy is stale. `bun run sdk:types` rewrites it.
import { generateDtsBundle } from 'dts-bundle-generator';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { SDK_TYPES } from './sdk-bundle.ts';

const SDK_DIR = join(import.meta.dir, '../../sdk');

const HEADER = `// Types of the Easel browser SDK, served as /sdk/v1.d.ts. The script
// /sdk/v1.js defines the global \`easel\`; save this file next to your code and
// reference it (\`/// <reference path="./v1.d.ts" />\`) or import its types.
//
// Generated from sdk/public-types.ts by \`bun run sdk:types\`: do not edit.
`;

const FOOTER = `
declare global {
  interface Window {
    easel: Easel;
  }
  const easel: Easel;
}
`;

/** The text of sdk/v1.d.ts as the SDK's sources declare it now. */
export async function generateSdkTypes(): Promise<string> {
  const [declarations] = generateDtsBundle(
    [{ filePath: join(SDK_DIR, 'public-types.ts'), output: { noBanner: true, exportReferencedTypes: false } }],
    { preferredConfigPath: join(SDK_DIR, 'tsconfig.types.json') },
  );
  if (declarations === undefined) throw new Error('sdk types: no output');
  const body = declarations.replace(/\n*export \{\};\s*$/, '\n');
  const options = (await resolveConfig(SDK_TYPES)) ?? {};
  return format(HEADER + '\n' + body + FOOTER, { ...options, parser: 'typescript' });
}

if (import.meta.main) {
  await Bun.write(SDK_TYPES, await generateSdkTypes());
  console.log(`sdk types: wrote ${SDK_TYPES}`);
}
