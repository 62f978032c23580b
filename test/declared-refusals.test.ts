// passes: embedded — the harness's refusal ledger itself, without an app
// The check every suite runs at close (test/declared-refusals.ts) can fail:
// an undeclared code on a route is named, a declared one or a door's is not,
// and a request is charged to the route the router would pick.
import { describe, expect, test } from 'bun:test';
import type { RouteDeclaration } from '../src/http/declared-route.ts';
import type { ListedRoute } from '../src/http/route-listing.ts';
import { RefusalLedger } from './declared-refusals.ts';

const declared = (method: string, path: string, errors: RouteDeclaration['errors'] = []): ListedRoute => ({
  method,
  path,
  via: 'router',
  declaration: { method: method as RouteDeclaration['method'], path, door: 'session', tag: 'Management', summary: 'x', errors },
});
const refusal = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

describe('the refusal ledger', () => {
  const listing = [
    declared('GET', '/api/things/:id', ['NOT_FOUND']),
    declared('GET', '/api/things/special', []),
    declared('POST', '/api/things/:id'),
  ];

  test('a code the route does not declare is named; declared codes and the door’s are not', async () => {
    const ledger = new RefusalLedger(() => listing);
    await ledger.record(new Request('http://x/api/things/1'), refusal(404, { code: 'NOT_FOUND', message: 'no' }));
    await ledger.record(new Request('http://x/api/things/1'), refusal(401, { error: 'unauthorized' }));
    expect(ledger.undeclared()).toEqual([]);
    await ledger.record(new Request('http://x/api/things/1', { method: 'POST' }), refusal(409, { code: 'SLUG_TAKEN', message: 'taken' }));
    expect(ledger.undeclared()).toEqual(['POST /api/things/:id: SLUG_TAKEN']);
  });

  test('a static segment outranks a parameter, as in the router; answers that are not JSON refusals are not counted', async () => {
    const ledger = new RefusalLedger(() => listing);
    await ledger.record(new Request('http://x/api/things/special'), refusal(404, { code: 'NOT_FOUND', message: 'no' }));
    expect(ledger.undeclared()).toEqual(['GET /api/things/special: NOT_FOUND']);
    const other = new RefusalLedger(() => listing);
    await other.record(
      new Request('http://x/api/things/1'),
      new Response('<p>no</p>', { status: 410, headers: { 'content-type': 'text/html' } }),
    );
    await other.record(new Request('http://x/api/things/1'), refusal(200, { code: 'NOT_A_REFUSAL' }));
    await other.record(new Request('http://x/api/nothing'), refusal(404, { code: 'NOT_FOUND', message: 'no route' }));
    // The router's own answers at a path a route's pattern matches as text (a decoded %2F, a method not offered).
    await other.record(new Request('http://x/api/things/a%2Fb'), refusal(404, { code: 'NOT_FOUND', message: 'no such route' }));
    await other.record(
      new Request('http://x/api/things/1', { method: 'POST' }),
      refusal(405, { code: 'METHOD_NOT_ALLOWED', message: 'no' }),
    );
    expect(other.undeclared()).toEqual([]);
  });
});
