// A local HTTPS upstream for Connection tests: a self-signed certificate for a
// made-up host name (trusted through EASEL_CONNECTIONS_CA_FILE, reached
// through an EASEL_CONNECTIONS_RESOLVE pin), and a Bun.serve that records
// every request it receives and answers through a swappable handler.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'bun';

export const UPSTREAM_HOST = 'api.upstream.test';
export const SECRET_KEY_HEX = 'a1'.repeat(32);

export interface Cert {
  certFile: string;
  cert: string;
  key: string;
}

/** A self-signed certificate for `hostname`, written to a temp dir (removed by `cleanup`). */
export function makeCert(hostname: string): Cert & { cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'easel-cert-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${hostname}`,
      '-addext',
      `subjectAltName=DNS:${hostname}`,
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl failed: ${r.stderr}`);
  return {
    certFile,
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  remotePort: number;
}

export type UpstreamHandler = (req: Request, received: Received) => Response | Promise<Response>;

export interface Upstream {
  port: number;
  server: Server<unknown>;
  received: Received[];
  /** Swaps the answer; the default echoes what arrived as JSON. */
  handle(handler: UpstreamHandler | null): void;
  stop(): Promise<void>;
}

export const echo: UpstreamHandler = (_req, r) => Response.json({ method: r.method, path: r.path, headers: r.headers, body: r.body });

export function startUpstream(cert: Cert): Upstream {
  const received: Received[] = [];
  let handler: UpstreamHandler = echo;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
    async fetch(req, srv) {
      const url = new URL(req.url);
      const r: Received = {
        method: req.method,
        path: url.pathname + url.search,
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
        remotePort: srv.requestIP(req)?.port ?? 0,
      };
      received.push(r);
      return handler(req, r);
    },
  });
  return {
    port: server.port!,
    server,
    received,
    handle: (h) => {
      handler = h ?? echo;
    },
    stop: () => server.stop(true),
  };
}

/** A TCP listener that only counts the connections it gets: proof that nothing was opened to it. */
export async function startTrap(hostname = '127.0.0.1'): Promise<{ port: number; connections: () => number; stop(): void }> {
  let count = 0;
  const listener = Bun.listen({
    hostname,
    port: 0,
    socket: {
      open(s) {
        count++;
        s.end();
      },
      data() {},
    },
  });
  return { port: listener.port, connections: () => count, stop: () => listener.stop(true) };
}

/** The runtime world (world.ts's cast, set up through the API) on the app of a Connections suite. */
export { makeWorld as connectionWorld } from './runtime-fixtures.ts';
