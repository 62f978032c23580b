// The one client: read-only sub-objects over one transport. Each primitive
// is one file (me, kv, files, ai, realtime, …) given the transport.
import { createAi, type AiApi } from './ai.ts';
import { createCanvases, type CanvasesApi } from './canvases.ts';
import { createCollection, type Collection } from './collections.ts';
import { createConnections, type ConnectionsApi } from './connections.ts';
import {
  CapabilityDisabledError,
  EaselError,
  errorFor,
  errorFromResponse,
  PermissionDeniedError,
  QuotaExceededError,
  UnauthorizedError,
} from './errors.ts';
import { currentSignInUrl } from './sign-in.ts';
import { createFiles, type Files } from './files.ts';
import { createKv, type Kv } from './kv.ts';
import { createMe, type Identity } from './me.ts';
import { createRealtime, type Realtime, type RealtimeOptions } from './realtime.ts';
import { createSubmissions, type Submissions } from './submissions.ts';
import { createTransport, type FetchLike, type Target, type Transport } from './request.ts';

export interface Easel {
  /** The server version that built this bundle. */
  readonly version: string;
  me(): Promise<Identity>;
  readonly kv: Kv;
  readonly files: Files;
  readonly ai: AiApi;
  readonly realtime: Realtime;
  readonly connections: ConnectionsApi;
  /** Records of a collection the runtime policy configures. */
  collections(name: string): Collection;
  /** One submission per person in `collection`. */
  submissions(collection: string): Submissions;
  /** Authoring: canvases this page publishes for the person using it. */
  readonly canvases: CanvasesApi;
  /** Sends the visitor to sign in and back to this page (what to do with an UnauthorizedError). */
  signIn(): void;
  readonly EaselError: typeof EaselError;
  readonly QuotaExceededError: typeof QuotaExceededError;
  readonly CapabilityDisabledError: typeof CapabilityDisabledError;
  readonly PermissionDeniedError: typeof PermissionDeniedError;
  readonly UnauthorizedError: typeof UnauthorizedError;
}

export interface ClientOptions {
  version: string;
  target: () => Target;
  /** Tests outside a browser pass their own (with a cookie); browsers use fetch and WebSocket. */
  fetch?: FetchLike;
  openSocket?: RealtimeOptions['openSocket'];
  retry?: RealtimeOptions['retry'];
}

export function createClient(options: ClientOptions): Easel {
  const t: Transport = createTransport(options.target, options.fetch);
  const realtime = createRealtime({
    url: () => t.url('/realtime').replace(/^http/, 'ws'),
    openSocket: options.openSocket,
    retry: options.retry,
    probe: () => probe(t),
  });
  return Object.freeze({
    version: options.version,
    me: createMe(t),
    kv: createKv(t),
    files: createFiles(t),
    ai: Object.freeze(
      createAi({
        post: (path, body, signal) => t.fetch('POST', path, { json: body, signal }),
        errorFrom: errorFromResponse,
        error: (code, status, message) => errorFor(code, status, message),
      }),
    ),
    realtime,
    connections: Object.freeze(createConnections({ url: t.url, fetch: options.fetch })),
    collections: (name: string) => createCollection(t, name),
    submissions: (collection: string) => createSubmissions(t, collection),
    canvases: createCanvases(t),
    signIn() {
      const url = currentSignInUrl();
      if (!url) throw new EaselError('NOT_A_CANVAS', 0, 'easel.signIn() runs in a browser page');
      (globalThis as unknown as { location: Location }).location.assign(url);
    },
    EaselError,
    QuotaExceededError,
    CapabilityDisabledError,
    PermissionDeniedError,
    UnauthorizedError,
  });
}

/** Why a realtime handshake failed, when the HTTP API says it is not worth retrying (401, 403, 404…; not 429 or 5xx). */
async function probe(t: Transport): Promise<EaselError | 'answered' | null> {
  try {
    await t.request('GET', '/me');
    return 'answered';
  } catch (err) {
    if (err instanceof EaselError && err.status >= 400 && err.status < 500 && err.status !== 429) return err;
    return null;
  }
}
