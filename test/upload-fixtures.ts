// Site manifests and thin request helpers for the staged-upload and CLI
// tests; their keyed canvases come from test/deploy-fixtures.ts.
import type { Core } from '../src/foundation.ts';
import { sha256Hex } from '../src/ids.ts';
import type { DeployCanvas as KeyedCanvas } from './deploy-fixtures.ts';
import { body, type TestApp } from './harness.ts';

/** The Deploy API suites' keyed canvas (test/deploy-fixtures.ts), under the name these suites use. */
export { createDeployCanvas as createKeyedCanvas, type DeployCanvas as KeyedCanvas } from './deploy-fixtures.ts';

type Bytes = Uint8Array<ArrayBuffer>;

export interface SiteFile {
  path: string;
  bytes: Bytes;
  hash: string;
  size: number;
}

/** Files from `{path: content}`; the manifest is `[{path, hash, size}]`. */
export function site(files: Record<string, string | Bytes>): {
  files: SiteFile[];
  manifest: Array<{ path: string; hash: string; size: number }>;
  byHash: Map<string, Bytes>;
} {
  const list = Object.entries(files).map(([path, content]) => {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    return { path, bytes, hash: sha256Hex(bytes), size: bytes.byteLength };
  });
  const byHash = new Map(list.map((f) => [f.hash, f.bytes]));
  return { files: list, manifest: list.map(({ path, hash, size }) => ({ path, hash, size })), byHash };
}

export const fakeHash = (seed: string) => sha256Hex(`fake:${seed}`);

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

export async function begin(app: TestApp, c: KeyedCanvas, json: unknown, key = c.key) {
  const res = await app.request(`/v1/canvases/${c.id}/uploads`, { method: 'POST', json, headers: auth(key) });
  return { status: res.status, headers: res.headers, body: await body(res) };
}

export async function stage(
  app: TestApp,
  c: KeyedCanvas,
  uploadId: string,
  hash: string,
  bytes: BodyInit | null,
  key = c.key,
  headers: Record<string, string> = {},
) {
  const res = await app.request(`/v1/canvases/${c.id}/uploads/${uploadId}/blobs/${hash}`, {
    method: 'PUT',
    body: bytes,
    headers: { ...auth(key), ...headers },
  });
  return { status: res.status, body: await body(res) };
}

export async function finalize(
  app: TestApp,
  c: KeyedCanvas,
  uploadId: string,
  json?: unknown,
  init: { body?: BodyInit; key?: string } = {},
) {
  const res = await app.request(`/v1/canvases/${c.id}/uploads/${uploadId}/finalize`, {
    method: 'POST',
    ...(json !== undefined ? { json } : { body: init.body }),
    headers: auth(init.key ?? c.key),
  });
  return { status: res.status, headers: res.headers, body: await body(res) };
}

/** Begin, stage every missing blob, finalize: the whole staged deploy. */
export async function stagedDeploy(
  app: TestApp,
  c: KeyedCanvas,
  files: Record<string, string | Bytes>,
  coordination: { releaseId?: string; expectedPublicationToken?: string } = {},
) {
  const s = site(files);
  const b = await begin(app, c, { manifest: s.manifest, ...coordination });
  if (b.status !== 200 || b.body.outcome) return b;
  for (const hash of b.body.missingHashes as string[]) {
    const r = await stage(app, c, b.body.uploadId, hash, s.byHash.get(hash)!);
    if (r.status !== 204) throw new Error(`stage failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return finalize(app, c, b.body.uploadId);
}

/** The live token straight from the store. */
export async function tokenOf(ctx: Core, canvasId: string): Promise<string> {
  return (await ctx.canvases.byId(canvasId))!.publicationToken;
}

/** Request log lines the app wrote for PUT blob staging. */
export function blobPuts(app: TestApp): Array<Record<string, unknown>> {
  return app.logs.filter((l) => l.msg === 'request' && l.method === 'PUT' && /\/uploads\/[^/]+\/blobs\//.test(String(l.path)));
}
