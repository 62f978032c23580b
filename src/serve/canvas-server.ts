import type { Principal } from '../auth/principal.ts';
import type { InsightCounters } from '../insights/counters.ts';
import { LruCache } from '../cache/lru.ts';
import type { AccessDecision, AccessRefusal } from '../canvases/access.ts';
import type { AccessResolver } from '../canvases/access-resolver.ts';
import { andThen, type Maybe } from '../sync-first.ts';
import { statusOf, type Canvas } from '../canvases/record.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { Core } from '../foundation.ts';
import { principalOf } from '../auth/guards.ts';
import { metaOf } from '../http/meta.ts';
import { html } from '../http/respond.ts';
import type { RateCounter } from '../ratelimit/port.ts';
import { safeNext } from '../http/same-origin-path.ts';
import { CompressedStore } from './compress.ts';
import { gateCookieWith } from './gate-pass.ts';
import { canvasSecurityHeaders } from './security-headers.ts';
import { ManifestCache, type Manifest } from './manifest.ts';
import { passwordPage, refusalPage, signInPage, type RefusalPage, type Viewer } from './pages.ts';
import { readForm } from './gate-form.ts';
import { resolveCanvasPath } from './resolve.ts';
import { sendFile, type FileSource } from './send-file.ts';
import { BodyCache } from './body-cache.ts';
import { VersionedCache } from '../db/versioned-cache.ts';
import { CanvasSignIn, type CanvasSignInDeps } from './canvas-sign-in.ts';
import { canvasOrigin } from '../runtime/isolation.ts';

/** How long a page waits for a copy from the remote blob store (EASEL_BLOB_URL). */
const BLOB_FETCH_WAIT_MS = 30_000;
/**
 * The longest a page admission is reused without deciding it again. Short: it
 * only has to cover a page load's burst of assets, and what it was decided
 * from is itself trusted for at most VERSIONED_TTL_MS (writes the signal
 * cannot see, by another process) — so such a write shows within that bound
 * plus this one.
 */
const ADMISSION_MEMO_MS = 1_000;

/** The part of the app context this feature uses. */
export type CanvasServerDeps = Pick<
  Core,
  'auth' | 'blobs' | 'canvases' | 'config' | 'events' | 'instanceSecret' | 'log' | 'now' | 'rateLimits' | 'sql'
> &
  CanvasSignInDeps;

/** Where a canvas is mounted on the request's host: `/c/{slug}/` (path mode) or `/` (its own subdomain). */
export interface Mount {
  slug: string;
  /** URL path of the canvas root, ending in "/". */
  base: string;
}

/** Version addresses are for looking at, never for search engines. */
const NOINDEX = { 'x-robots-tag': 'noindex' };

/** Password attempts per canvas per visitor per minute: argon2 is slow on purpose, guessing should be too. */
export const GATE_ATTEMPTS_PER_MIN = 10;
/**
 * Password attempts per canvas per minute from everyone together: a guesser
 * with many addresses or accounts gets no more than this (and the argon2
 * work a canvas can cost stays bounded). Visitors with a valid pass never
 * meet the gate, so a flood only delays new visitors by a minute at most.
 */
export const GATE_ATTEMPTS_PER_CANVAS_PER_MIN = 100;
const GATE_PATH = '__easel/gate';
/** Subdomain mode: where a canvas host trades a sign-in code for its own session, and where a link may start that. */
const HANDOFF_PATH = '__easel/handoff';
const SIGN_IN_PATH = '__easel/signin';
/** A canvas host's "sign in as someone else": this host's session ends, then the instance's sign-in. */
const SWITCH_PATH = '__easel/switch';
/** A person's browser draft, served like the canvas's pages (the editor's preview): `__easel/draft/{token}/…`. */
const DRAFT_PREFIX = '__easel/draft/';
/** Every kept version, with the canvas's access: `__easel/v/{number}/…` (issue 40, deploy previews). */
const VERSION_PREFIX = '__easel/v/';
const VERSION_NUMBER = /^[1-9][0-9]{0,8}$/;

/** Where the page server finds the draft a preview token names (src/drafts/service.ts). */
export interface DraftManifests {
  previewManifest(canvas: Canvas, token: string): Promise<Manifest | null>;
}

/** A live page view, as insights counts it: the canvas and who looked (null: anonymous). */
type View = { canvas: { id: string }; visitor: string | null };

type Admission =
  | { ok: true; canvas: Canvas; decision: Extract<AccessDecision, { ok: true }>; publicOpen: boolean; visitor: string | null }
  | { ok: false; canvas: Canvas | null; code: AccessRefusal | 'SIGN_IN'; response: Response };

/**
 * Serves canvas pages in both URL modes: the access ladder (the same
 * decideAccess as the runtime pipeline), the password gate, and files of the
 * live version from the blob store. A signed-in page view reads no database
 * row while nothing changed: the session (SessionStore), the canvas with its
 * owner, the member role come from memory, trusted only while DataVersion is unchanged;
 * the manifest is checked against the live version id; small files are held
 * in memory. Nothing is written (but the hourly session renewal).
 */
export class CanvasServer {
  readonly manifests: ManifestCache;
  readonly compressed: CompressedStore;
  private readonly security: Record<string, string>;
  /**
   * Its own limiter: brute-force protection stays on even when
   * EASEL_RATELIMIT_ENABLED=false lifts the HTTP classes. Counted in Redis
   * with EASEL_REDIS_URL: a guesser spreading attempts over the nodes gets no more.
   */
  private readonly gateLimiter: RateCounter;
  private readonly present = new LruCache<string, true>({ maxEntries: 100_000 });
  /**
   * Signed-in admissions by canvas mount and session hash: a page load's
   * assets skip the ladder (the session, the canvas with its owner, the
   * member role, the instance switches). Trusted as what they were decided
   * from is: while the change signal (every write to sessions, users,
   * canvases, members or settings, on any node) is unchanged, and until the
   * first time rule could answer otherwise (remember() below).
   */
  private readonly admissions: VersionedCache<Admission & { ok: true }>;
  readonly bodies = new BodyCache();
  private readonly source: FileSource;
  /** Sign-in through the base host, for canvas hosts (subdomain mode, dev or oidc sign-in); null otherwise. */
  private readonly hostSignIn: CanvasSignIn | null;

  constructor(
    private readonly ctx: CanvasServerDeps,
    private readonly access: AccessResolver,
    private readonly drafts: DraftManifests | null = null,
    /** A bucket that takes the connection and never answers must not hold a visitor: past this, the 503 page (the fetch goes on). */
    private readonly blobFetchWaitMs = BLOB_FETCH_WAIT_MS,
    /** Where a live page's HTML 200 is counted (src/insights/): one in-memory call per view. */
    private readonly insights: Pick<InsightCounters, 'view'> | null = null,
  ) {
    this.manifests = new ManifestCache(ctx.sql);
    this.admissions = new VersionedCache(ctx.sql.changes, ctx.now, 10_000, ADMISSION_MEMO_MS);
    this.compressed = new CompressedStore(ctx.blobs, (err) =>
      ctx.log.warn('compression failed', { error: err instanceof Error ? err.message : String(err) }),
    );
    this.security = canvasSecurityHeaders(ctx.config);
    this.source = { blobPath: (hash) => ctx.blobs.pathOf(hash), body: (key, size, path) => this.bodies.get(key, size, path) };
    this.gateLimiter = ctx.rateLimits.counter({ enabled: true, maxKeys: 50_000 });
    this.hostSignIn = ctx.config.urlMode === 'subdomain' && ctx.config.authMode !== 'proxy' ? new CanvasSignIn(ctx) : null;
    const drop = ({ canvasId }: { canvasId: string }) => this.manifests.invalidate(canvasId);
    ctx.events.on('canvas.published', drop);
    ctx.events.on('canvas.unpublished', drop);
    ctx.events.on('canvas.access-changed', drop);
    ctx.events.on('canvas.deleted', drop);
    ctx.blobs.onDelete((hash) => this.present.delete(hash));
  }

  /**
   * `rest`: the still-encoded path below the canvas root; `query`: "" or "?…".
   * A page view whose facts are all held in memory is answered without a
   * promise (src/sync-first.ts); a throw may come synchronously.
   */
  handle(request: Request, mount: Mount, rest: string, query: string): Maybe<Response> {
    const method = request.method;
    if (rest === GATE_PATH && method === 'POST') return this.gate(request, mount);
    if (this.hostSignIn && mount.base === '/' && method === 'GET') {
      if (rest === HANDOFF_PATH) return this.hostSignIn.exchange(request, mount.slug, query, this.security);
      if (rest === SWITCH_PATH) return this.switchAccount(request, mount, query);
      if (rest === SIGN_IN_PATH) {
        const next = safeNext(new URLSearchParams(query).get('next'), '/', canvasOrigin(this.ctx.config, mount.slug));
        return this.hostSignIn.begin(request, mount.slug, next, this.security);
      }
    }
    if (method !== 'GET' && method !== 'HEAD') {
      return this.page(405, 'METHOD_NOT_ALLOWED', { allow: 'GET, HEAD' });
    }
    // The token in the address is the credential: no session reaches a cross-site frame.
    if (rest.startsWith(DRAFT_PREFIX)) return this.draftPreview(request, mount, rest.slice(DRAFT_PREFIX.length), query);
    // No closure when the admission is there at once (most page views).
    const admission = this.admit(request, mount, query, rest);
    if (admission instanceof Promise) return admission.then((a) => this.admitted(request, mount, rest, query, a));
    return this.admitted(request, mount, rest, query, admission);
  }

  /** What an admitted visitor gets (the ladder's refusal otherwise): the live version's file, or a kept version's. */
  private admitted(request: Request, mount: Mount, rest: string, query: string, admission: Admission): Maybe<Response> {
    if (!admission.ok) return admission.response;
    const { canvas } = admission;
    // A worker would keep answering for the canvas after unpublishing or lost access: only with the owner's leave.
    const workerRefused = request.headers.get('service-worker') === 'script' && !canvas.serviceWorkers;
    if (rest.startsWith(VERSION_PREFIX)) {
      if (workerRefused) return this.page(403, 'SERVICE_WORKER_REFUSED');
      return this.versionPage(request, mount, canvas, rest.slice(VERSION_PREFIX.length), query);
    }
    if (canvas.currentVersionId === null) return this.page(404, 'NOT_PUBLISHED');
    if (workerRefused) return this.page(403, 'SERVICE_WORKER_REFUSED');

    // Shared caches may keep what anyone may see; they must still revalidate, so expiry and unpublish bite at once.
    const cacheControl = admission.publicOpen && !canvas.hasPassword ? 'public, no-cache' : 'private, no-cache';
    // The admission itself names the view (canvas and visitor) insights counts.
    const manifest = this.manifests.get(mount.slug, canvas.id, canvas.currentVersionId);
    if (manifest instanceof Promise)
      return manifest.then((m) => this.serveFrom(request, m, mount.base, rest, query, cacheControl, this.security, admission));
    return this.serveFrom(request, manifest, mount.base, rest, query, cacheControl, this.security, admission);
  }

  /**
   * A kept version below `{canvas URL}__easel/v/{number}/`, admitted as the
   * canvas is (the caller ran the ladder), served as the live one is (its own
   * 404.html, its redirects), never indexed and never kept by shared caches.
   */
  private async versionPage(request: Request, mount: Mount, canvas: Canvas, rest: string, query: string): Promise<Response> {
    const slash = rest.indexOf('/');
    const number = slash < 0 ? rest : rest.slice(0, slash);
    const manifest = VERSION_NUMBER.test(number) ? await this.manifests.version(mount.slug, canvas.id, Number(number)) : null;
    if (!manifest) return this.page(404, 'FILE_NOT_FOUND', NOINDEX);
    const here = `${mount.base}${VERSION_PREFIX}${number}/`;
    const headers = { ...this.security, ...NOINDEX };
    const cacheControl = 'private, no-cache';
    if (slash < 0)
      return new Response(null, { status: 301, headers: { ...headers, location: here + query, 'cache-control': cacheControl } });
    return this.serveFrom(request, manifest, here, rest.slice(slash + 1), query, cacheControl, headers);
  }

  /**
   * A path of `manifest` mounted at `base`: the file, a 301 to its canonical
   * path, or the manifest's own 404.html (else the plain 404 page). The live
   * version and the editor's preview answer alike.
   */
  private serveFrom(
    request: Request,
    manifest: Manifest,
    base: string,
    rest: string,
    query: string,
    cacheControl: string,
    headers: Record<string, string> = this.security,
    /** The live version's view, counted in insights when an HTML page answers 200 (drafts and previews pass none). */
    view: View | null = null,
  ): Response | Promise<Response> {
    const resolution = resolveCanvasPath(manifest, rest);
    if (resolution.kind === 'redirect') {
      return new Response(null, {
        status: 301,
        headers: { ...headers, location: base + resolution.to + query, 'cache-control': cacheControl },
      });
    }
    if (resolution.kind === 'file') {
      const file = resolution.file;
      const counted = view && this.insights && request.method === 'GET' && file.mime.startsWith('text/html');
      // Most page views: the blob is known to be here, and the answer is made without a closure.
      if (this.blobHeld(file.hash)) {
        const sent = sendFile(request, file, this.source, this.compressed, { status: 200, cacheControl, headers });
        return counted ? this.countView(sent, view, resolution.path) : sent;
      }
      const send = () => sendFile(request, file, this.source, this.compressed, { status: 200, cacheControl, headers });
      return this.withBlob(file.hash, counted ? () => this.countView(send(), view, resolution.path) : send, () =>
        this.page(500, 'BLOB_MISSING'),
      );
    }
    const custom = manifest.files.get('404.html');
    if (!custom) return this.page(404, 'FILE_NOT_FOUND', headers);
    return this.withBlob(
      custom.hash,
      () => sendFile(request, custom, this.source, this.compressed, { status: 404, cacheControl, headers }),
      () => this.page(404, 'FILE_NOT_FOUND'),
    );
  }

  /** A 200 (not a 304 or a range) is a page view. */
  private countView(sent: Response | Promise<Response>, view: View, path: string) {
    const count = (res: Response) => {
      if (res.status === 200) this.insights!.view(view.canvas.id, `/${path}`, view.visitor);
      return res;
    };
    return sent instanceof Promise ? sent.then(count) : count(sent);
  }

  /** `serve` once the blob can be read here (fetched first from a remote tier), else `missing`; a remote that does not answer gets a 503 page. */
  private withBlob(hash: string, serve: () => Response | Promise<Response>, missing: () => Response): Response | Promise<Response> {
    const present = this.blobPresent(hash);
    if (present === true) return serve();
    if (present === false) return missing();
    let timer: Timer | undefined;
    const tooLong = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the blob store within ${this.blobFetchWaitMs} ms`)), this.blobFetchWaitMs);
    });
    return Promise.race([present, tooLong])
      .then(
        (ok) => (ok ? serve() : missing()),
        (err) => {
          this.ctx.log.error('blob fetch failed', { hash, error: err instanceof Error ? err.message : String(err) });
          return this.page(503, 'STORAGE_UNAVAILABLE', { 'retry-after': '5' });
        },
      )
      .finally(() => clearTimeout(timer));
  }

  /**
   * A person's draft below `{canvas URL}__easel/draft/{token}/`, on the
   * canvas's origin with its headers (relative links keep the token). Only a
   * token this canvas issued to someone who still manages it opens anything.
   */
  private async draftPreview(request: Request, mount: Mount, rest: string, query: string): Promise<Response> {
    const slash = rest.indexOf('/');
    const token = slash < 0 ? rest : rest.slice(0, slash);
    const canvas = (await this.access.bySlug(mount.slug))?.canvas ?? null;
    const manifest =
      canvas && canvas.deletedAt === null && statusOf(canvas) === 'active' ? await this.drafts?.previewManifest(canvas, token) : null;
    if (!manifest) return this.page(404, 'FILE_NOT_FOUND');
    const cacheControl = 'private, no-store';
    const here = `${mount.base}${DRAFT_PREFIX}${token}/`;
    if (slash < 0)
      return new Response(null, { status: 301, headers: { ...this.security, location: here + query, 'cache-control': cacheControl } });
    return this.serveFrom(request, manifest, here, rest.slice(slash + 1), query, cacheControl);
  }

  /**
   * Checked once per local copy per process: a blob lost from disk must
   * answer a plain 500 page, not Bun's error page for a failed file read.
   * A copy dropped from a remote tier's cache is forgotten (onDelete).
   */
  private blobPresent(hash: string): boolean | Promise<boolean> {
    if (this.blobHeld(hash)) return true;
    const found = this.ctx.blobs.local(hash);
    const remember = (ok: boolean) => {
      if (ok) this.present.set(hash, true);
      else this.ctx.log.error('blob missing', { hash });
      return ok;
    };
    return typeof found === 'boolean' ? remember(found) : found.then(remember);
  }

  /** Whether this local copy was already found here (blobPresent), touched as used. */
  private blobHeld(hash: string): boolean {
    if (!this.present.has(hash)) return false;
    this.ctx.blobs.touch(hash);
    return true;
  }

  /** `POST {canvas URL}__easel/gate`: 303 back with a pass on the right password, 403 with the form otherwise. */
  private async gate(request: Request, mount: Mount): Promise<Response> {
    const form = await readForm(request);
    const field = (name: string): string | null => {
      const v = form?.get(name);
      return typeof v === 'string' ? v : null;
    };
    const next = safeNext(field('next'), mount.base, new URL(canvasUrl(this.ctx.config, mount.slug)).origin);
    const admission = await this.admit(request, mount, '', '', false);
    if (admission.ok) return this.seeOther(next); // no password, or one the visitor does not need
    if (admission.code !== 'PASSWORD_REQUIRED') return admission.response;
    const canvas = admission.canvas!;

    const who = await this.visitorKey(request);
    const mine = await this.gateLimiter.hit(`gate:${canvas.id}:${who}`, GATE_ATTEMPTS_PER_MIN);
    if (!mine.allowed) return this.page(429, 'RATE_LIMITED', { 'retry-after': String(mine.retryAfter) });
    const everyone = await this.gateLimiter.hit(`gate:${canvas.id}`, GATE_ATTEMPTS_PER_CANVAS_PER_MIN);
    if (!everyone.allowed) return this.page(429, 'RATE_LIMITED', { 'retry-after': String(everyone.retryAfter) });

    const password = field('password');
    const hash = await this.ctx.canvases.passwordHash(canvas.id);
    const ok =
      password !== null &&
      password.length > 0 &&
      password.length <= 1024 &&
      hash !== null &&
      (await Bun.password.verify(password, hash).catch(() => false));
    this.ctx.log.info(ok ? 'gate passed' : 'gate refused', { requestId: metaOf(request).id, canvasId: canvas.id });
    if (!ok) return this.passwordForm(mount, next, true);
    metaOf(request).cookies.push(gateCookieWith(this.ctx, request, canvas));
    return this.seeOther(next);
  }

  /**
   * The access ladder for a page. Without a session only an open Public link
   * canvas gets past the gateway (to the page or its password form); everyone
   * else is sent to sign in, whether or not the canvas exists.
   */
  private admit(request: Request, mount: Mount, query: string, rest: string, checkGate = true): Maybe<Admission> {
    // A signed-in visitor's last admission to this canvas, while nothing it was decided from has changed (`admissions`).
    const session = checkGate ? this.ctx.auth.heldSessionKey(request) : null;
    const memoKey = session === null ? null : `${mount.base}${mount.slug} ${session}`;
    if (memoKey !== null) {
      const held = this.admissions.peek(memoKey);
      if (held !== undefined) return held;
    }
    const mark = memoKey === null ? null : this.admissions.mark();
    // The canvas's facts, the visitor and their role are usually held in memory: waited for only when they are not.
    return andThen(this.access.bySlug(mount.slug), (found) =>
      andThen(principalOf(this.ctx, request), (known) => {
        const principal = pagePrincipal(known, found?.canvas ?? null);
        return andThen(this.access.resolve(request, found, principal, checkGate), ({ canvas, decision, publicOpen }) => {
          if (decision.ok) {
            const admission: Admission = { ok: true, canvas: canvas!, decision, publicOpen, visitor: visitorOf(principal) };
            if (memoKey !== null) this.remember(request, memoKey, mark, admission, session!);
            return admission;
          }
          if (!principal && decision.code !== 'PASSWORD_REQUIRED')
            return { ok: false, canvas, code: 'SIGN_IN', response: this.signIn(request, mount, rest, query) };
          return this.refused(request, mount, rest + query, canvas, decision.code);
        });
      }),
    );
  }

  /**
   * Keeps an admission for the memo when it followed from the held session
   * alone: a person signed in by that session, answered from memory (a
   * looked-up or renewed session, a guest, a password pass are decided
   * afresh every time). Until the session's expiry or renewal and the
   * canvas's share expiry, whichever comes first.
   */
  private remember(request: Request, key: string, mark: number | null, admission: Admission & { ok: true }, session: string): void {
    const { canvas } = admission;
    if (canvas.hasPassword || admission.visitor === null || admission.visitor.startsWith('guest:')) return;
    if (principalOf(this.ctx, request) instanceof Promise) return; // looked up, not held
    const sessionUntil = this.ctx.auth.heldSessionUntil(session);
    if (sessionUntil === null) return;
    this.admissions.putSince(mark, key, admission, canvas.expiresAt === null ? sessionUntil : Math.min(sessionUntil, canvas.expiresAt));
  }

  /** The refusal page for `code`, naming who is signed in. */
  private async refused(request: Request, mount: Mount, here: string, canvas: Canvas | null, code: AccessRefusal): Promise<Admission> {
    return { ok: false, canvas, code, response: this.refusal(code, mount, mount.base + here, await this.viewerOf(request, mount, here)) };
  }

  /** Who is signed in, for the refusal page, with where to switch (not in proxy mode: the proxy signs people in). */
  private async viewerOf(request: Request, mount: Mount, here: string): Promise<Viewer | null> {
    const p = await principalOf(this.ctx, request);
    const label = p?.kind === 'user' ? p.user.email : p?.kind === 'guest' ? `a guest link (${p.name})` : null;
    if (label === null) return null;
    if (this.ctx.config.authMode === 'proxy') return { label, switchHref: null };
    const switchHref =
      mount.base === '/'
        ? `/${SWITCH_PATH}?next=${encodeURIComponent('/' + here)}`
        : `/auth/login?switch=1&returnTo=${encodeURIComponent(mount.base + here)}`;
    return { label, switchHref };
  }

  /** `GET {canvas host}/__easel/switch?next=…`: this host's session ends; the instance's sign-in (choosing an account) brings the visitor back. */
  private async switchAccount(request: Request, mount: Mount, query: string): Promise<Response> {
    const { sessions, guests } = this.ctx.auth.credentialTokens(request);
    for (const token of sessions) await this.ctx.sessions.destroy(token);
    for (const token of guests) await this.ctx.guests.destroySession(token);
    metaOf(request).cookies.push(this.ctx.auth.clearedSessionCookie(), this.ctx.auth.clearedGuestCookie());
    const next = safeNext(new URLSearchParams(query).get('next'), '/', canvasOrigin(this.ctx.config, mount.slug));
    const back = new URL(next, canvasOrigin(this.ctx.config, mount.slug)).href;
    return new Response(null, {
      status: 302,
      headers: {
        ...this.security,
        'cache-control': 'no-store',
        location: `${this.ctx.config.baseUrl}/auth/login?switch=1&returnTo=${encodeURIComponent(back)}`,
      },
    });
  }

  private refusal(code: AccessRefusal, mount: Mount, here: string, viewer: Viewer | null = null): Response {
    if (code === 'PASSWORD_REQUIRED') return this.passwordForm(mount, here, false);
    // Access is gone: on the canvas's own host, the browser drops what the canvas left there (caches,
    // storage, service workers). In path mode the origin is the dashboard's too, so nothing is cleared.
    const clear = mount.base === '/' ? { 'clear-site-data': '"cache", "storage"' } : undefined;
    switch (code) {
      case 'DISABLED':
        return this.page(403, 'DISABLED', clear, viewer);
      case 'ARCHIVED':
      case 'SHARE_EXPIRED':
        return this.page(404, code, clear, viewer);
      default:
        // NOT_FOUND, OWNER_ONLY, NOT_INVITED: one answer, so nobody learns whether the canvas exists.
        return this.page(404, 'NOT_FOUND', clear, viewer);
    }
  }

  /** dev and oidc: 302 to sign-in and back; proxy: 401 (the proxy in front signs people in). */
  private signIn(request: Request, mount: Mount, rest: string, query: string): Response {
    const headers = { ...this.security, 'cache-control': 'no-store' };
    if (this.ctx.config.authMode === 'proxy') return html(401, signInPage(), headers);
    const here = mount.base + rest + query;
    // A canvas host has its own session, handed over by the base host; path mode shares the base host's.
    if (this.hostSignIn) return this.hostSignIn.begin(request, mount.slug, here, this.security);
    return new Response(null, { status: 302, headers: { ...headers, location: `/auth/login?returnTo=${encodeURIComponent(here)}` } });
  }

  private passwordForm(mount: Mount, next: string, wrong: boolean): Response {
    return html(403, passwordPage(mount.base + GATE_PATH, next, wrong), { ...this.security, 'cache-control': 'no-store' });
  }

  private page(status: number, kind: RefusalPage, extra: Record<string, string> = {}, viewer: Viewer | null = null): Response {
    return html(status, refusalPage(kind, viewer), { ...this.security, 'cache-control': 'no-store', ...extra });
  }

  private seeOther(location: string): Response {
    return new Response(null, { status: 303, headers: { ...this.security, location, 'cache-control': 'no-store' } });
  }

  private async visitorKey(request: Request): Promise<string> {
    const p = await principalOf(this.ctx, request);
    if (p?.kind === 'user') return p.user.id;
    if (p?.kind === 'guest') return `guest:${p.inviteId}`;
    return `ip:${metaOf(request).ip ?? 'unknown'}`;
  }
}

/**
 * Who a page visitor is for this canvas. A legacy guest session is scoped to
 * one canvas: on any other canvas's pages it counts for nothing, so the guest
 * gets what an anonymous visitor gets (an open Public link page, else the way
 * to sign in), whether or not that canvas exists. The runtime API keeps
 * refusing such a guest with NOT_INVITED (CONTRACT §5; runtime pipeline).
 */
/** Who counts as one visitor in insights: a signed-in person or a guest invite; anonymous visitors count as views only. */
function visitorOf(principal: Principal | null): string | null {
  if (principal?.kind === 'user') return principal.user.id;
  return principal?.kind === 'guest' ? `guest:${principal.inviteId}` : null;
}

function pagePrincipal(principal: Principal | null, canvas: Canvas | null): Principal | null {
  if (principal?.kind === 'guest' && (canvas === null || principal.canvasId !== canvas.id)) return null;
  return principal;
}
