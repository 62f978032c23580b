// Placeholder types of the Easel browser SDK (served as /sdk/v1.d.ts): the SDK
// issue replaces this file and keeps its path.
export interface Easel {
  /** The server version that built this bundle. */
  readonly version: string;
}

declare global {
  interface Window {
    easel: Easel;
  }
}
