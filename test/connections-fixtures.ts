// A local HTTPS upstream for Connection tests: a self-signed certificate for a
// made-up host name (trusted through EASEL_CONNECTIONS_CA_FILE, reached
// through an EASEL_CONNECTIONS_RESOLVE pin), and a Bun.serve that records
// every request it receives and answers through a swappable handler.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'bun';
import { GUEST_COOKIE } from '../src/auth/guests.ts';
import { newId } from '../src/ids.ts';
import type { TestApp } from './harness.ts';
import { ADMIN_EMAIL, makeCanvas, type World } from './runtime-fixtures.ts';

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

/**
 * runtime-fixtures' makeWorld, with the legacy guest made through the guest
 * store directly (the invite route belongs to another feature's routes).
 */
export async function connectionWorld(app: TestApp): Promise<World> {
  const tag = newId().slice(0, 6);
  const email = (who: string) => `${who}-${tag}@example.com`;
  const cookie = {} as World['cookie'];
  const ids = {} as World['ids'];
  for (const who of ['owner', 'editor', 'viewer', 'viewer2', 'stranger'] as const) {
    cookie[who] = await app.signIn(email(who), who);
    ids[who] = app.ctx.users.byEmail(email(who))!.id;
  }
  cookie.admin = await app.signIn(ADMIN_EMAIL, 'Admin');
  ids.admin = app.ctx.users.byEmail(ADMIN_EMAIL)!.id;
  cookie.anonymous = '';
  const canvas = makeCanvas(app, ids.owner);
  const now = app.ctx.now();
  app.ctx.canvases.setMember(canvas.id, ids.editor, 'editor', now);
  app.ctx.canvases.setMember(canvas.id, ids.viewer, 'viewer', now);
  app.ctx.canvases.setMember(canvas.id, ids.viewer2, 'viewer', now);
  const { invite } = app.ctx.guests.createInvite(canvas.id, ids.owner);
  cookie.guest = `${GUEST_COOKIE}=${app.ctx.guests.createSession(invite)}`;
  ids.guest = `guest:${invite.inviteId}`;
  return { canvas: app.ctx.canvases.byId(canvas.id)!, slug: canvas.slug, cookie, ids };
}
