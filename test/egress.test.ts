// passes: embedded, cluster
// Egress safety for Connections: which addresses count as public, and a table
// of hostile targets that must all be refused with no socket opened to them.
// Proof of "no socket": the injected connector (the only thing that opens
// sockets) is never called for them, and a TCP listener on the loopback
// address they point at records no connection. A pinned name aimed at the
// same listener shows the listener does notice when something connects.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { classifyAddress } from '../src/connections/ip.ts';
import { systemResolver } from '../src/connections/resolver.ts';
import { bunConnector, type EgressDeps } from '../src/connections/upstream.ts';
import { makeCert, SECRET_KEY_HEX, startTrap, startUpstream, UPSTREAM_HOST, type Upstream } from './connections-fixtures.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, apiCanvas } from './runtime-fixtures.ts';

const REFUSED: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'shared-address-space'],
  ['100.127.255.255', 'shared-address-space'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.1', 'documentation'],
  ['203.0.113.1', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['0.0.0.0', 'this-network'],
  ['0.1.2.3', 'this-network'],
  ['192.0.0.8', 'ietf-protocol-assignments'],
  ['192.88.99.1', '6to4-relay-anycast'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['febf::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fd00:ec2::254', 'unique-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'ipv4-mapped:loopback'],
  ['::ffff:7f00:1', 'ipv4-mapped:loopback'],
  ['::ffff:169.254.169.254', 'ipv4-mapped:link-local'],
  ['::127.0.0.1', 'ipv4-compatible:loopback'],
  ['::a00:1', 'ipv4-compatible:private'],
  ['64:ff9b::a9fe:a9fe', 'nat64:link-local'],
  ['64:ff9b::127.0.0.1', 'nat64:loopback'],
  ['64:ff9b:1::808:808', 'nat64-local-use'],
  ['2002:7f00:1::1', '6to4:loopback'],
  ['2002:c0a8:101::1', '6to4:private'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo-client:loopback'],
  ['2001:0:a00:1::1', 'teredo-server:private'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ietf-protocol-assignments'],
  ['100::1', 'discard-only'],
  ['4000::1', 'reserved'],
  ['fe80::1%eth0', 'not-an-address'],
  ['127.1', 'not-an-address'],
  ['0x7f.0.0.1', 'not-an-address'],
  ['2130706433', 'not-an-address'],
  ['017700000001', 'not-an-address'],
  ['127.000.000.001', 'not-an-address'],
  ['localhost', 'not-an-address'],
  ['', 'not-an-address'],
  ['1:2:3:4:5:6:7:8:9', 'not-an-address'],
];

const PUBLIC = [
  '8.8.8.8',
  '93.184.216.34',
  '1.1.1.1',
  '11.0.0.1',
  '100.128.0.1',
  '172.32.0.1',
  '192.169.0.1',
  '198.20.0.1',
  '223.255.255.254',
  '2606:4700:4700::1111',
  '2a00:1450:4001::1',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  '[2606:4700::1]',
];

describe('address classification', () => {
  test.each(REFUSED)('%s is refused (%s)', (address, range) => {
    expect(classifyAddress(address)).toEqual({ public: false, range });
  });
  test.each(PUBLIC)('%s is public', (address) => {
    expect(classifyAddress(address)).toEqual({ public: true });
  });
});

/** Answers the upstream pretends are public: the connector sends them to the local HTTPS upstream. */
const FAKE_PUBLIC = '93.184.216.34';
const FAKE_PUBLIC_6 = '2606:4700:4700::1111';

describe('hostile targets through the Connections route', () => {
  const cert = makeCert(UPSTREAM_HOST);
  let upstream: Upstream;
  let trap: Awaited<ReturnType<typeof startTrap>>;
  let app: TestApp;
  let owner: string;
  let admin: string;
  let slug: string;
  let canvasId: string;
  const connects: string[] = [];
  const answers = new Map<string, string[] | (() => string[])>();
  let n = 0;

  /** Names whose lookup never answers. */
  const stalled = new Set<string>();
  function inject(egress: EgressDeps): void {
    egress.resolver = async (hostname) => {
      if (hostname === 'localhost') return systemResolver(hostname);
      if (stalled.has(hostname)) return new Promise<string[]>(() => {});
      const a = answers.get(hostname);
      if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return typeof a === 'function' ? a() : a;
    };
    egress.connector = (url, init) => {
      connects.push(url);
      const u = new URL(url);
      const host = u.hostname.replace(/^\[|\]$/g, '');
      if (host === FAKE_PUBLIC || host === FAKE_PUBLIC_6)
        return bunConnector(`https://127.0.0.1:${upstream.port}${u.pathname}${u.search}`, init);
      return bunConnector(url, init);
    };
  }

  beforeAll(async () => {
    upstream = startUpstream(cert);
    trap = await startTrap();
    app = await startTestApp({
      env: {
        EASEL_ADMIN_EMAILS: ADMIN_EMAIL,
        EASEL_SECRET_KEY: SECRET_KEY_HEX,
        EASEL_CONNECTIONS_CA_FILE: cert.certFile,
        EASEL_CONNECTIONS_RESOLVE: `pinned.hostile.test:${trap.port}:127.0.0.1`,
      },
    });
    // Every node's egress (on the cluster the requests alternate between two).
    for (const { features } of app.nodes) inject(features.connections.egress);
    admin = await app.signIn(ADMIN_EMAIL);
    owner = await app.signIn('owner@example.com', 'Owner');
    const canvas = await apiCanvas(app, owner);
    slug = canvas.slug;
    canvasId = canvas.id;
  });
  afterAll(async () => {
    await app.close();
    await upstream.stop();
    trap.stop();
    cert.cleanup();
  });

  async function profileFor(origin: string): Promise<string> {
    const name = `p${++n}`;
    const res = await app.request('/api/admin/connections', {
      method: 'POST',
      cookie: admin,
      json: { name, origin, methods: ['GET', 'POST'], protectedHeaders: { authorization: 'Bearer never-sent' } },
    });
    if (res.status !== 201) throw new Error(`profile ${origin}: ${res.status} ${await res.text()}`);
    await app.request(`/api/admin/canvases/${canvasId}/connections/${name}`, { method: 'PUT', cookie: admin });
    return name;
  }

  async function expectRefused(name: string, code: string, hidden: string[] = []): Promise<void> {
    const before = { connects: connects.length, trap: trap.connections() };
    const res = await app.request(`/v1/c/${slug}/connections/${name}/latest/meta-data/`, { cookie: owner });
    const b = await body(res);
    expect({ status: res.status, code: b.code }).toEqual({ status: 502, code });
    expect(res.headers.get('x-easel-connection-response')).toBeNull();
    for (const h of hidden) if (h) expect(b.message).not.toContain(h);
    expect(connects.length).toBe(before.connects);
    expect(trap.connections()).toBe(before.trap);
  }

  const hostileAnswers: string[][] = [
    ...REFUSED.map(([a]) => [a]),
    [FAKE_PUBLIC, '10.0.0.1'],
    ['10.0.0.1', FAKE_PUBLIC],
    [FAKE_PUBLIC_6, '::1'],
    [FAKE_PUBLIC, '::ffff:192.168.1.1'],
    [FAKE_PUBLIC, FAKE_PUBLIC_6, '169.254.169.254'],
  ];

  test(`${hostileAnswers.length} names resolving to non-public answers (alone or mixed with public ones) are refused before any socket`, async () => {
    expect(hostileAnswers.length).toBeGreaterThanOrEqual(25);
    for (const list of hostileAnswers) {
      const host = `t${n + 1}.hostile.test`;
      answers.set(host, list);
      const name = await profileFor(`https://${host}:${trap.port}`);
      await expectRefused(
        name,
        'CONNECTION_ADDRESS_REFUSED',
        list.filter((a) => a !== FAKE_PUBLIC && a !== FAKE_PUBLIC_6),
      );
    }
    // Every node's log (on the cluster the requests alternate between two).
    const logs = app.nodes.flatMap((node) => node.logs);
    const warned = logs.filter((l) => l.msg === 'connections: address refused');
    expect(warned.length).toBe(hostileAnswers.length);
    expect(JSON.stringify(logs)).not.toContain('never-sent');
  });

  test('localhost, through the system resolver, is refused', async () => {
    await expectRefused(await profileFor(`https://localhost:${trap.port}`), 'CONNECTION_ADDRESS_REFUSED');
  });

  test('a name that does not resolve is CONNECTION_DNS_FAILED; an empty answer too', async () => {
    await expectRefused(await profileFor(`https://nothing.hostile.test:${trap.port}`), 'CONNECTION_DNS_FAILED');
    answers.set('empty.hostile.test', []);
    await expectRefused(await profileFor(`https://empty.hostile.test:${trap.port}`), 'CONNECTION_DNS_FAILED');
  });

  test('the deadline covers DNS: a lookup that never answers is 504 CONNECTION_TIMEOUT, and nothing is connected', async () => {
    const deadline = (ms: number) => app.nodes.forEach((node) => (node.features.connections.tuning.deadlineMs = ms));
    deadline(200);
    answers.set('slow.hostile.test', () => {
      throw new Error('unused');
    });
    stalled.add('slow.hostile.test');
    const name = await profileFor(`https://slow.hostile.test:${trap.port}`);
    const before = { connects: connects.length, trap: trap.connections() };
    // The lookup never answers: only the deadline can end the request.
    const res = await app.request(`/v1/c/${slug}/connections/${name}/x`, { cookie: owner });
    expect({ status: res.status, code: (await body(res)).code }).toEqual({ status: 504, code: 'CONNECTION_TIMEOUT' });
    expect(connects.length).toBe(before.connects);
    expect(trap.connections()).toBe(before.trap);
    stalled.delete('slow.hostile.test');
    deadline(10_000);
  });

  test('IP literals in every spelling cannot even become a profile', async () => {
    for (const origin of [
      'https://127.0.0.1',
      'https://127.1',
      'https://0x7f.0.0.1',
      'https://2130706433',
      'https://017700000001',
      'https://0177.0.0.1',
      'https://[::1]',
      'https://[::ffff:127.0.0.1]',
      'https://[fe80::1]',
      'https://169.254.169.254',
      'https://0xa9fea9fe',
      'https://10.1',
    ]) {
      const res = await app.request('/api/admin/connections', {
        method: 'POST',
        cookie: admin,
        json: { name: 'literal', origin, methods: ['GET'] },
      });
      const b = await body(res);
      expect({ origin, status: res.status, code: b.code }).toEqual({ origin, status: 400, code: 'INVALID_BODY' });
      expect(b.message).toContain('IP literals');
    }
  });

  test('port 0 cannot become a profile (issue 23 item 18): 400 INVALID_BODY naming it; other explicit ports are kept', async () => {
    const post = (origin: string) =>
      app.request('/api/admin/connections', {
        method: 'POST',
        cookie: admin,
        json: { name: `port-${origin.length}`, origin, methods: ['GET'] },
      });
    for (const origin of ['https://api.example.test:0', 'https://api.example.test:00']) {
      const res = await post(origin);
      const b = await body(res);
      expect({ origin, status: res.status, code: b.code }).toEqual({ origin, status: 400, code: 'INVALID_BODY' });
      expect(b.message).toContain('port 0');
    }
    const kept = await post('https://api.example.test:8443');
    expect(kept.status).toBe(201);
    expect((await body(kept)).origin).toBe('https://api.example.test:8443');
  });

  test('redirects to private addresses (another origin) are refused without a connection to them', async () => {
    answers.set(UPSTREAM_HOST, [FAKE_PUBLIC]);
    const name = await profileFor(`https://${UPSTREAM_HOST}:${upstream.port}`);
    for (const location of [
      `https://127.0.0.1:${trap.port}/`,
      `https://localhost:${trap.port}/`,
      'https://169.254.169.254/latest/meta-data/',
      `https://[::1]:${trap.port}/`,
      `https://pinned.hostile.test:${trap.port}/`,
      `https://2130706433:${trap.port}/`,
    ]) {
      upstream.handle(() => new Response(null, { status: 302, headers: { location } }));
      const before = { connects: connects.length, trap: trap.connections() };
      const res = await app.request(`/v1/c/${slug}/connections/${name}/start`, { cookie: owner });
      expect((await body(res)).code).toBe('CONNECTION_REDIRECT_REFUSED');
      expect(connects.length).toBe(before.connects + 1);
      expect(connects.at(-1)).toContain(FAKE_PUBLIC);
      expect(trap.connections()).toBe(before.trap);
    }
    upstream.handle(null);
  });

  test('DNS is checked again on every redirect: a name that rebinds to a private address mid-way is refused', async () => {
    let lookups = 0;
    answers.set(UPSTREAM_HOST, () => (++lookups === 1 ? [FAKE_PUBLIC] : ['127.0.0.1']));
    const name = await profileFor(`https://${UPSTREAM_HOST}:${upstream.port}`);
    upstream.handle((_req, r) =>
      r.path === '/first' ? new Response(null, { status: 302, headers: { location: '/second' } }) : new Response('should not get here'),
    );
    const before = connects.length;
    const res = await app.request(`/v1/c/${slug}/connections/${name}/first`, { cookie: owner });
    expect((await body(res)).code).toBe('CONNECTION_ADDRESS_REFUSED');
    expect(lookups).toBe(2);
    expect(connects.slice(before).map((u) => new URL(u).hostname)).toEqual([FAKE_PUBLIC]);
    expect(upstream.received.at(-1)!.path).toBe('/first');
    upstream.handle(null);
  });

  test('a public answer is reached at the checked address while TLS verifies the approved name', async () => {
    answers.set(UPSTREAM_HOST, [FAKE_PUBLIC_6, FAKE_PUBLIC]);
    const name = await profileFor(`https://${UPSTREAM_HOST}:${upstream.port}`);
    const before = connects.length;
    const res = await app.request(`/v1/c/${slug}/connections/${name}/ok`, { cookie: owner });
    expect(res.status).toBe(200);
    // IPv4 first, and the URL names the address, not the host.
    expect(connects.slice(before)).toEqual([`https://${FAKE_PUBLIC}:${upstream.port}/ok`]);
    expect((await res.json()).headers.host).toBe(`${UPSTREAM_HOST}:${upstream.port}`);
  });

  test('an EASEL_CONNECTIONS_RESOLVE pin is the one way to a private address (and the trap does see that connection)', async () => {
    const name = await profileFor(`https://pinned.hostile.test:${trap.port}`);
    const before = trap.connections();
    const res = await app.request(`/v1/c/${slug}/connections/${name}/x`, { cookie: owner });
    // The trap is no TLS server, so the request fails; what matters is that it was attempted.
    expect(res.status).toBe(502);
    expect(connects.at(-1)).toBe(`https://127.0.0.1:${trap.port}/x`);
    expect(trap.connections()).toBe(before + 1);
  });
});
