// The browser SDK's JavaScript examples in docs/ (```js blocks that call
// `easel.`), shared by the two tests that hold them to the SDK: type-checked
// against the v1.d.ts GET /sdk/v1.d.ts serves (test/docs-sdk.test.ts) and run
// in a canvas page in Chromium (test/browser/docs-sdk.test.ts); and the
// README's page, run there too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const SDK_PAGES = ['sdk', 'realtime', 'ai', 'connections'];

export interface SdkExample {
  /** `docs/ai.md#2`: the page and the example's place among its js blocks. */
  name: string;
  code: string;
}

/** The README's SDK example: a whole canvas page (```html). */
export function readmeSdkPage(): string {
  const text = readFileSync(join(import.meta.dir, '../README.md'), 'utf8');
  const match = /^```html\n([\s\S]*?)^```$/m.exec(text.slice(text.indexOf('### Use the SDK')));
  if (!match) throw new Error('README.md has no html block under "Use the SDK"');
  return match[1]!;
}

/** Every ```js block of the SDK pages that calls the SDK, in page order. */
export function sdkExamples(): SdkExample[] {
  return SDK_PAGES.flatMap((page) => {
    const text = readFileSync(join(import.meta.dir, `../docs/${page}.md`), 'utf8');
    return [...text.matchAll(/^```js\n([\s\S]*?)^```$/gm)]
      .map((m, i) => ({ name: `docs/${page}.md#${i + 1}`, code: m[1]! }))
      .filter((e) => e.code.includes('easel.'));
  });
}
