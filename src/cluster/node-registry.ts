// Which Easel processes run on one Postgres database. Without Redis a node's
// rate limits, realtime rooms and presence live in its own memory, so a
// second node would split them silently: a node started without Redis runs
// alone, and a node that finds another live node where either lacks Redis
// refuses to start. Each node writes a heartbeat row; a row not refreshed
// within NODE_TTL_MS belongs to a node that died.
import type { Cancel, Scheduler } from '../clock.ts';
import { tx, type Sql } from '../db/sql.ts';
import type { Lifecycle } from '../lifecycle.ts';

export const NODE_HEARTBEAT_MS = 10_000;
/** Three heartbeats missed: the node is gone. */
export const NODE_TTL_MS = 30_000;

const INSERT = 'INSERT INTO nodes (id, started_at, heartbeat_at, with_redis, host, data_dir, pid) VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6)';

/** Thrown at start: the one line `easel serve` refuses with. */
export class ClusterStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterStartError';
  }
}

export interface NodeRegistryDeps {
  /** This process (AppContext.nodeId: AI reservations name it too). */
  id: string;
  sql: Sql;
  now: () => number;
  scheduler: Scheduler;
  /** EASEL_REDIS_URL is set on this node. */
  withRedis: boolean;
  /** Where this run is: an earlier run at the same host and data directory whose process is gone was this node, crashed. */
  run: NodeRun;
  onHeartbeatError: (err: unknown) => void;
  /** Earlier runs of this node found dead at start (their rows removed: what they held is released now). */
  onEarlierRunsGone: (ids: string[]) => void;
}

export interface NodeRun {
  host: string;
  /** Absolute: one data directory admits one process at a time (its lock), so it names the node on its host. */
  dataDir: string;
  pid: number;
  /** Whether a process with that pid runs on this host now. */
  alive: (pid: number) => boolean;
}

export class NodeRegistry implements Lifecycle {
  readonly id: string;
  private cancelHeartbeat: Cancel = () => {};
  private joined = false;

  constructor(private readonly deps: NodeRegistryDeps) {
    this.id = deps.id;
  }

  /**
   * Joins the database's nodes, or refuses (ClusterStartError) when that
   * would split limits and realtime.
   */
  async start(): Promise<void> {
    const { sql, now, withRedis, run } = this.deps;
    const id = this.id;
    const replaced = await sql.write(function* () {
      // Two nodes starting together must not both find the other absent.
      yield* tx.lock('nodes');
      // Earlier runs of this node that never left (killed, crashed, power lost): their process is gone, or its pid is
      // ours now (a container restarted). They leave now, so their reservations and leases are released at once
      // and a node alone on the database is not refused by its own ghost.
      const earlier = yield* tx.all<{ id: string; pid: number }>(
        'SELECT id, pid FROM nodes WHERE host = ?1 AND data_dir = ?2 AND id <> ?3',
        run.host,
        run.dataDir,
        id,
      );
      const gone = earlier.filter((r) => Number(r.pid) === run.pid || !run.alive(Number(r.pid))).map((r) => r.id);
      for (const ghost of gone) yield* tx.run('DELETE FROM nodes WHERE id = ?1', ghost);
      const since = now() - NODE_TTL_MS;
      const live = yield* tx.all<{ id: string; with_redis: number }>(
        'SELECT id, with_redis FROM nodes WHERE heartbeat_at > ?1 AND id <> ?2 ORDER BY started_at',
        since,
        id,
      );
      if (live.length > 0 && !withRedis) {
        throw new ClusterStartError(
          `another Easel node is running on this database (node ${live[0]!.id}); set EASEL_REDIS_URL on every node to run more than one`,
        );
      }
      const alone = live.find((n) => n.with_redis === 0);
      if (alone) {
        throw new ClusterStartError(
          `Easel node ${alone.id} runs on this database without Redis, as the only node; restart it with EASEL_REDIS_URL before adding nodes`,
        );
      }
      yield* tx.run('DELETE FROM nodes WHERE heartbeat_at <= ?1', since);
      yield* tx.run(INSERT, id, now(), withRedis ? 1 : 0, run.host, run.dataDir, run.pid);
      return gone;
    });
    this.joined = true;
    if (replaced.length > 0) this.deps.onEarlierRunsGone(replaced);
    this.cancelHeartbeat = this.deps.scheduler.interval(NODE_HEARTBEAT_MS, () => void this.beat());
  }

  /** Nodes whose heartbeat is current, this one included. */
  async liveCount(): Promise<number> {
    const row = await this.deps.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM nodes WHERE heartbeat_at > ?1',
      this.deps.now() - NODE_TTL_MS,
    );
    return row!.n;
  }

  async beat(): Promise<void> {
    try {
      // A row reaped while this node was stalled is written again: it is alive.
      const { run } = this.deps;
      await this.deps.sql.run(
        `${INSERT} ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
        this.id,
        this.deps.now(),
        this.deps.withRedis ? 1 : 0,
        run.host,
        run.dataDir,
        run.pid,
      );
    } catch (err) {
      this.deps.onHeartbeatError(err);
    }
  }

  /** Leaves at once, so a replacement started right after (a rolling restart) is not refused. */
  async stop(): Promise<void> {
    this.cancelHeartbeat();
    if (!this.joined) return;
    this.joined = false;
    await this.deps.sql.run('DELETE FROM nodes WHERE id = ?1', this.id);
  }
}
