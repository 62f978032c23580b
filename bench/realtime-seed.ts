// The realtime benches' canvas: 30 people, the first the owner, the next
// four editors (with the owner, the 5 slots viewers may not take:
// REALTIME_LIMITS.connectionsReservedForManagers), the rest viewers.
import { loadConfig } from '../src/config.ts';
import { createCore } from '../src/foundation.ts';
import { newId, newToken, sha256Hex } from '../src/ids.ts';
import { REALTIME_LIMITS } from '../src/runtime/realtime/limits.ts';

export const SOCKETS = REALTIME_LIMITS.connectionsPerCanvas;
export const EDITORS = REALTIME_LIMITS.connectionsReservedForManagers - 1;

/** Writes the canvas and its people into the storage `env` names; answers their emails (index 0: the owner). */
export async function seedRealtimeCanvas(env: Record<string, string>, slug: string): Promise<string[]> {
  const emails = Array.from({ length: SOCKETS }, (_, i) => `person${i}@bench.test`);
  const ctx = await createCore(loadConfig({ EASEL_LOG_LEVEL: 'silent', ...env }));
  const users = [];
  for (const [i, e] of emails.entries()) users.push(await ctx.users.ensure(e, `Person ${i}`));
  const now = Date.now();
  const canvas = await ctx.canvases.insert({
    id: newId(),
    slug,
    title: 'bench',
    ownerId: users[0]!.id,
    keyHash: sha256Hex(newToken()),
    publicationToken: newToken(),
    now,
  });
  for (const [i, u] of users.entries()) if (i > 0) await ctx.canvases.setMember(canvas.id, u.id, i <= EDITORS ? 'editor' : 'viewer', now);
  await ctx.sql.close();
  return emails;
}

export interface PublishRounds {
  rounds: number;
  perRound: number;
  rate: number;
  channel: string;
  /** A freshly opened, subscribed publisher socket (a connection may publish 100 times a minute). */
  openPublisher: () => Promise<WebSocket>;
  /** Round 0 warms up: counting is off during it. */
  setCounting: (on: boolean) => void;
  delivered: () => number;
}

/** Publishes `perRound` messages a round at `rate` per second; answers each counted round's deliveries and length. */
export async function publishRounds(o: PublishRounds): Promise<Array<{ delivered: number; seconds: number }>> {
  const rounds: Array<{ delivered: number; seconds: number }> = [];
  for (let round = 0; round <= o.rounds; round++) {
    const publisher = await o.openPublisher();
    o.setCounting(round > 0);
    const before = o.delivered();
    const started = performance.now();
    for (let i = 0; i < o.perRound; i++) {
      // Paced against the start, so timer drift does not lower the rate.
      const due = started + (i * 1000) / o.rate;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      publisher.send(JSON.stringify({ type: 'publish', channel: o.channel, event: 'tick', data: { t: performance.now(), i } }));
    }
    await Bun.sleep(200); // let the last messages land
    const seconds = (performance.now() - started - 200) / 1000 + 1 / o.rate;
    if (round > 0) rounds.push({ delivered: o.delivered() - before, seconds });
    publisher.close();
    await Bun.sleep(50);
  }
  return rounds;
}

/** Opens a socket at `url`, subscribes to `channel`, then hands every bench message's `t` to `onTick`. */
export async function subscribeTicks(url: string, cookie: string, channel: string, onTick: (sentAt: number) => void): Promise<WebSocket> {
  const ws = new WebSocket(url, { headers: { cookie } } as unknown as string[]);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => ws.send(JSON.stringify({ type: 'subscribe', channel }));
    ws.onclose = (e) => reject(new Error(`socket closed: ${e.code} ${e.reason}`));
    ws.onmessage = (e) => {
      const f = JSON.parse(String(e.data));
      if (f.type === 'subscribed') resolve();
      if (f.type === 'error') reject(new Error(`${f.code}: ${f.message}`));
    };
  });
  ws.onclose = null;
  ws.onmessage = (e) => {
    const f = JSON.parse(String(e.data));
    if (f.type === 'message') onTick(f.data.t);
  };
  return ws;
}
