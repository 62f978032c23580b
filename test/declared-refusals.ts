// Every refusal a suite sees through the harness is held to what its route
// declares (issue 37: "a test that every error code a suite observes on a
// route is among its declared errors"). The harness records each JSON
// refusal's code against the route that answered (matched in the app's own
// listing, as the router matches: static before `:param` before `*`), and
// its close() fails the suite with the undeclared ones.
import type { ListedRoute } from '../src/http/route-listing.ts';
import { routeKey } from '../src/openapi/document.ts';
import { DOORS } from '../src/openapi/doors.ts';

/** A route's pattern, one entry per segment: a literal, a parameter or the trailing wildcard. */
type Segment = { literal: string } | 'param' | 'rest';

interface Compiled {
  route: ListedRoute;
  segments: Segment[];
}

const compile = (route: ListedRoute): Compiled => ({
  route,
  segments: route.path
    .split('/')
    .slice(1)
    .map((s): Segment => (s === '*' ? 'rest' : s.startsWith(':') ? 'param' : { literal: s })),
});

function matches(c: Compiled, parts: string[]): boolean {
  for (let i = 0; i < c.segments.length; i++) {
    const seg = c.segments[i]!;
    if (seg === 'rest') return true;
    if (i >= parts.length) return false;
    if (seg !== 'param' && seg.literal !== parts[i]) return false;
  }
  return parts.length === c.segments.length;
}

/** Static segments outrank parameters, which outrank the wildcard, segment by segment (the router's rule). */
function moreSpecific(a: Compiled, b: Compiled): boolean {
  const rank = (s: Segment | undefined) => (s === undefined ? -1 : s === 'rest' ? 0 : s === 'param' ? 1 : 2);
  for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
    const [ra, rb] = [rank(a.segments[i]), rank(b.segments[i])];
    if (ra !== rb) return ra > rb;
  }
  return false;
}

/** The code of a refusal body in either shape: `{code, message}` or the Deploy API's `{error}`. */
function codeOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as { code?: unknown; error?: unknown };
  if (typeof b.code === 'string') return b.code;
  if (typeof b.error === 'string') return b.error;
  if (typeof b.error === 'object' && b.error !== null && typeof (b.error as { code?: unknown }).code === 'string')
    return (b.error as { code: string }).code;
  return null;
}

export class RefusalLedger {
  private compiled: Compiled[] | null = null;
  /** `METHOD path` → codes seen. */
  private readonly seen = new Map<string, Set<string>>();

  constructor(private readonly listing: () => ListedRoute[]) {}

  /** Records a response's refusal code, if it is a JSON refusal of a route that has a description. */
  async record(request: Request, response: Response): Promise<void> {
    if (response.status < 400 || !response.headers.get('content-type')?.startsWith('application/json')) return;
    const route = this.routeOf(request.method === 'HEAD' ? 'GET' : request.method, new URL(request.url).pathname);
    if (!route) return;
    let body: unknown;
    try {
      body = await response.clone().json();
    } catch {
      return;
    }
    const code = codeOf(body);
    // The router's own answers (no route at this path, or not with this method) are not the matched route's refusals.
    if (
      code === null ||
      code === 'METHOD_NOT_ALLOWED' ||
      (code === 'NOT_FOUND' && (body as { message?: unknown }).message === 'no such route')
    )
      return;
    const key = routeKey(route.method, route.path);
    let codes = this.seen.get(key);
    if (!codes) this.seen.set(key, (codes = new Set()));
    codes.add(code);
  }

  /** The codes seen on a route that neither it nor its door declares, as `METHOD path: CODE`. */
  undeclared(): string[] {
    const out: string[] = [];
    for (const route of this.listing()) {
      const key = routeKey(route.method, route.path);
      const codes = this.seen.get(key);
      if (!codes) continue;
      const doc = route.declaration;
      if (!doc) continue;
      const declared = new Set<string>([...DOORS[doc.door].errors, ...(doc.errors ?? []), 'INTERNAL']);
      for (const code of codes) if (!declared.has(code)) out.push(`${key}: ${code}`);
    }
    return out.sort();
  }

  private routeOf(method: string, pathname: string): ListedRoute | null {
    this.compiled ??= this.listing()
      .filter((r) => r.path.startsWith('/'))
      .map(compile);
    const parts = pathname.split('/').slice(1);
    let best: Compiled | null = null;
    for (const c of this.compiled) {
      if (c.route.method !== method && c.route.method !== 'ALL') continue;
      if (!matches(c, parts)) continue;
      if (!best || moreSpecific(c, best)) best = c;
    }
    return best?.route ?? null;
  }
}
