// The writes the crash cycles kill a server under (test/stress/crash-cycles*.test.ts):
// ZIP deploys, staged uploads, KV increments, collection records and AI
// calls, each loop sequential, all at once.
import { zipSync } from 'fflate';

export const sha = (b: Uint8Array) => new Bun.CryptoHasher('sha256').update(b).digest('hex');

export interface CrashCanvas {
  id: string;
  slug: string;
  apiKey: string;
}

export interface CrashTarget {
  /** Where the next request goes. */
  base: () => string;
  cookie: string;
  canvas: CrashCanvas;
}

export type CallInit = RequestInit & { json?: unknown };

/** A request as the signed-in browser would send it to that node (its own origin). */
export function callAt(base: string, cookie: string, path: string, init: CallInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (cookie) headers.set('cookie', cookie);
  headers.set('origin', new URL(base).origin.replace('127.0.0.1', 'localhost'));
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  return fetch(base + path, { ...init, headers, body });
}

/**
 * Writes until stopped, each request to `target.base()` (one node, or the
 * next node of a cluster); `acked` counts the increments the server confirmed, `records` the record ids it answered, `aiCalls` the calls it finished. */
export function workload(target: CrashTarget, cycle: number, onAck: () => void) {
  const { canvas } = target;
  const call = (path: string, init: CallInit = {}) => callAt(target.base(), target.cookie, path, init);
  let stop = false;
  let acked = 0;
  let aiCalls = 0;
  const records: string[] = [];
  const key = { authorization: `Bearer ${canvas.apiKey}` };
  const swallow = () => {};
  const deploys = (async () => {
    for (let n = 0; !stop; n++) {
      const noise = new Uint8Array(200_000 + n);
      for (let i = 0; i < noise.length; i += 4096) noise[i] = (i + n + cycle) & 0xff;
      const zip = zipSync({ 'index.html': new TextEncoder().encode(`<h1>cycle ${cycle} deploy ${n}</h1>`), 'data.bin': noise });
      await fetch(`${target.base()}/v1/canvases/${canvas.id}/deploy`, { method: 'PUT', body: zip, headers: key }).then(onAck, swallow);
    }
  })();
  const staged = (async () => {
    for (let n = 0; !stop; n++) {
      const page = new TextEncoder().encode(`<h1>staged ${cycle}.${n}</h1>`);
      const begun = await fetch(`${target.base()}/v1/canvases/${canvas.id}/uploads`, {
        method: 'POST',
        headers: { ...key, 'content-type': 'application/json' },
        body: JSON.stringify({ manifest: [{ path: 'index.html', hash: sha(page), size: page.byteLength }] }),
      }).then(
        (r) => r.json() as Promise<{ uploadId?: string; missingHashes?: string[] }>,
        () => null,
      );
      if (!begun?.uploadId) continue;
      if (begun.missingHashes?.length)
        await fetch(`${target.base()}/v1/canvases/${canvas.id}/uploads/${begun.uploadId}/blobs/${sha(page)}`, {
          method: 'PUT',
          body: page,
          headers: key,
        }).catch(swallow);
      await fetch(`${target.base()}/v1/canvases/${canvas.id}/uploads/${begun.uploadId}/finalize`, { method: 'POST', headers: key }).then(
        onAck,
        swallow,
      );
    }
  })();
  const increments = (async () => {
    while (!stop) {
      const res = await call(`/v1/c/${canvas.slug}/kv/count/increment`, { method: 'POST', json: { by: 1 } }).catch(() => null);
      if (res?.status === 200) {
        acked++;
        onAck();
      }
    }
  })();
  const notes = (async () => {
    for (let n = 0; !stop; n++) {
      const res = await call(`/v1/c/${canvas.slug}/collections/notes`, { method: 'POST', json: { cycle, n } }).catch(() => null);
      if (res?.status !== 201) continue;
      const record = (await res.json().catch(() => null)) as { id?: string } | null;
      if (!record?.id) continue;
      records.push(record.id);
      onAck();
    }
  })();
  const ai = (async () => {
    while (!stop) {
      const res = await call(`/v1/c/${canvas.slug}/ai/chat`, {
        method: 'POST',
        json: { model: 'claude-haiku-5-5', messages: [{ role: 'user', content: `cycle ${cycle}` }] },
      }).catch(() => null);
      // Finished for the caller once the stream's `done` event (with its cost) arrived.
      const text = res?.status === 200 ? await res.text().catch(() => '') : '';
      if (text.includes('"type":"done"')) {
        aiCalls++;
        onAck();
      }
    }
  })();
  return {
    get acked() {
      return acked;
    },
    get aiCalls() {
      return aiCalls;
    },
    records,
    async stop() {
      stop = true;
      await Promise.all([deploys, staged, increments, notes, ai]);
    },
  };
}
