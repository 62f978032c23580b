// The one-process adapter of RealtimeCoordination: slots and presence in
// memory, nothing to send anywhere. Every answer is ready at once, so a
// process without EASEL_REDIS_URL behaves as the hub always did.
import type { RealtimeCoordination, SlotClaim } from './coordination.ts';
import type { PresenceUser } from './frames.ts';
import { slotRefusal, type SlotRefusal } from './slots.ts';

interface Participant {
  user: PresenceUser;
  /** The person's sockets counted in this channel's presence (they leave when the last one goes). */
  connections: Set<string>;
}

const channelKey = (canvasId: string, channel: string) => `${canvasId}\n${channel}`;

export class LocalCoordination implements RealtimeCoordination {
  readonly kind = 'local';
  /** canvasId → actorId → open sockets */
  private readonly slots = new Map<string, Map<string, number>>();
  private readonly open = new Map<string, number>();
  /** canvasId + channel → actorId → participant, in order of arrival */
  private readonly presence = new Map<string, Map<string, Participant>>();

  claimSlot({ canvasId, actorId, manager }: SlotClaim): Promise<SlotRefusal | null> {
    const people = this.slots.get(canvasId) ?? new Map<string, number>();
    const open = this.open.get(canvasId) ?? 0;
    const refusal = slotRefusal(open, people.get(actorId) ?? 0, manager);
    if (refusal === null) {
      people.set(actorId, (people.get(actorId) ?? 0) + 1);
      this.slots.set(canvasId, people);
      this.open.set(canvasId, open + 1);
    }
    return Promise.resolve(refusal);
  }

  releaseSlot({ canvasId, actorId }: SlotClaim): Promise<void> {
    const people = this.slots.get(canvasId);
    const mine = people?.get(actorId);
    if (!people || mine === undefined) return Promise.resolve();
    if (mine > 1) people.set(actorId, mine - 1);
    else people.delete(actorId);
    const open = (this.open.get(canvasId) ?? 1) - 1;
    if (open > 0) this.open.set(canvasId, open);
    else {
      this.open.delete(canvasId);
      this.slots.delete(canvasId);
    }
    return Promise.resolve();
  }

  arrive(canvasId: string, channel: string, connectionId: string, user: PresenceUser): Promise<boolean> {
    const key = channelKey(canvasId, channel);
    const people = this.presence.get(key) ?? new Map<string, Participant>();
    this.presence.set(key, people);
    const existing = people.get(user.id);
    if (existing) {
      existing.connections.add(connectionId);
      return Promise.resolve(false);
    }
    people.set(user.id, { user, connections: new Set([connectionId]) });
    return Promise.resolve(true);
  }

  depart(canvasId: string, channel: string, connectionId: string, actorId: string): Promise<PresenceUser | null> {
    const key = channelKey(canvasId, channel);
    const people = this.presence.get(key);
    const participant = people?.get(actorId);
    if (!people || !participant || !participant.connections.delete(connectionId) || participant.connections.size > 0)
      return Promise.resolve(null);
    people.delete(actorId);
    if (people.size === 0) this.presence.delete(key);
    return Promise.resolve(participant.user);
  }

  users(canvasId: string, channel: string): Promise<PresenceUser[]> {
    const people = this.presence.get(channelKey(canvasId, channel));
    return Promise.resolve(people ? [...people.values()].map((p) => p.user) : []);
  }

  broadcast(): void {
    // One process: the hub has reached every socket there is.
  }

  onFanout(): void {
    // Nothing ever comes from elsewhere.
  }
}
