// A request whose path is a route but whose method is not (POST …/deploy,
// GET /auth/logout): 405 with Allow naming the methods that path answers,
// instead of a bare "no such route".

interface RouteLike {
  method: string;
  path: string;
}

/** The methods the mounted routes answer at `pathname` (wildcard and ALL routes aside: those are fallbacks). */
export function allowedMethods(routes: readonly RouteLike[], pathname: string): string[] {
  const segments = pathname.split('/');
  const allowed = new Set<string>();
  for (const route of routes) {
    if (route.method === 'ALL' || route.path.includes('*')) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length) continue;
    if (pattern.every((p, i) => (p.startsWith(':') ? segments[i] !== '' : p === segments[i]))) allowed.add(route.method);
  }
  if (allowed.has('GET')) allowed.add('HEAD');
  return [...allowed].sort();
}

/** What to do instead, for the mistakes people make most. */
export function methodHint(method: string, pathname: string): string {
  if (/^\/v1\/canvases\/[^/]+\/deploy$/.test(pathname)) {
    return ' A deploy is a PUT of the ZIP\'s raw bytes: curl -X PUT --data-binary @site.zip -H "Authorization: Bearer $EASEL_CANVAS_KEY" …/deploy';
  }
  return method === 'GET' ? ' (this address changes something: it takes a POST, PUT, PATCH or DELETE)' : '';
}
