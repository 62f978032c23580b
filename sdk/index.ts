// The browser SDK's entry, bundled into /sdk/v1.js (an IIFE defining the
// global `easel`). The bundler defines __EASEL_VERSION__. The script's own
// URL is read now: document.currentScript is gone once this first run ends.
import { createClient } from './client.ts';
import { browserTarget, currentScriptSrc } from './env.ts';

declare const __EASEL_VERSION__: string | undefined;

const version = typeof __EASEL_VERSION__ === 'string' ? __EASEL_VERSION__ : 'dev';
(globalThis as unknown as { easel: unknown }).easel = createClient({ version, target: browserTarget(currentScriptSrc()) });
