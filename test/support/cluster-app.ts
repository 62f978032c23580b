// The cluster pass (EASEL_TEST_CLUSTER=postgres): a suite's app is two
// nodes on one Postgres database, one S3 bucket and one Redis. Requests
// alternate between the nodes. Before a request reaches a node, that node
// has heard every change committed so far (a notification sent now arrives
// after all of them) and reloaded what it holds whole (settings,
// Connections): the product answers with the new state within
// milliseconds, and the suites check what the state is, not how fast.
import type { TestApp, TestAppOptions } from '../harness.ts';
import { createTestDatabase } from './postgres-server.ts';
import { createTestRedis } from './redis-server.ts';
import { startS3Server, type S3TestServer } from './s3-server.ts';

let s3: Promise<S3TestServer> | null = null;
let apps = 0;

async function caughtUp(node: TestApp, notifier: TestApp): Promise<void> {
  const { changes } = node.ctx.sql;
  while (!changes.storable()) await changes.next();
  const before = changes.current();
  await notifier.ctx.sql.run("SELECT pg_notify('easel_changed', '') AS sent");
  while (changes.current() === before) await changes.next();
  node.ctx.settings.get();
  node.ctx.connections.get('');
  await Promise.all([node.ctx.settings.settled(), node.ctx.connections.settled()]);
}

export async function startClusterApp(options: TestAppOptions, startNode: (o: TestAppOptions) => Promise<TestApp>): Promise<TestApp> {
  s3 ??= startS3Server('easel-cluster-pass');
  const shared: Record<string, string> = {
    EASEL_DATABASE_URL: await createTestDatabase(),
    EASEL_REDIS_URL: await createTestRedis(),
    ...(await s3).env(`pass-${process.pid}-${++apps}/`),
  };
  const env = { ...options.env, ...shared };
  const a = await startNode({ ...options, env });
  const b = await startNode({ ...options, env });
  let turn = 0;
  const next = (): TestApp => (turn++ % 2 === 0 ? a : b);
  // Each node on its own (a test that spreads sockets over both, or acts on one node's memory on both), caught up like the app.
  const pinned = (node: TestApp): TestApp => ({
    ...node,
    async request(path, init) {
      await caughtUp(node, a);
      return node.request(path, init);
    },
    async signIn(email, name) {
      await caughtUp(node, a);
      return node.signIn(email, name);
    },
    nodes,
    caughtUp: () => caughtUp(node, a),
  });
  const nodes: TestApp[] = [];
  nodes.push(pinned(a), pinned(b));
  const app: TestApp = {
    ...a,
    /** Both nodes' log lines (node A's first): what a test finds, or must not find, in the logs is the cluster's. */
    get logs() {
      return [...a.logs, ...b.logs];
    },
    nodes,
    caughtUp: () => caughtUp(a, a),
    async request(path, init) {
      const node = next();
      await caughtUp(node, a);
      return node.request(path, init);
    },
    async signIn(email, name) {
      const node = next();
      await caughtUp(node, a);
      return node.signIn(email, name);
    },
    onEvent(event, listener) {
      const offs = [a.onEvent(event, listener), b.onEvent(event, listener)];
      return () => offs.forEach((off) => off());
    },
    async close() {
      await b.close();
      await a.close();
    },
  };
  return app;
}
