// Placeholder browser SDK entry (served as /sdk/v1.js): the SDK issue replaces
// this file and keeps its path. The bundler defines __EASEL_VERSION__.
declare const __EASEL_VERSION__: string | undefined;

const version = typeof __EASEL_VERSION__ === 'string' ? __EASEL_VERSION__ : 'dev';
(globalThis as unknown as { easel: { version: string } }).easel = { version };

export {};
