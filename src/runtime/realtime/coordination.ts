// What the realtime hubs of several nodes must agree on, as a port: the
// canvas's connection slots (the caps count every node's sockets), presence
// (a person is listed once and leaves when their last socket anywhere goes)
// and the fan-out to other nodes' sockets. The hub keeps its own sockets,
// topics and rights checks; only shared state and cross-node frames go
// through here. Adapters: LocalCoordination (one process, in memory: the
// default) and RedisCoordination (EASEL_REDIS_URL), chosen once in createApp.
import type { Lifecycle } from '../../lifecycle.ts';
import type { PresenceUser } from './frames.ts';
import type { SlotRefusal } from './slots.ts';

export interface SlotClaim {
  canvasId: string;
  connectionId: string;
  actorId: string;
  /** Owners and editors may take the slots held back from viewers. */
  manager: boolean;
}

/** A frame for the sockets on a canvas's channel topic (messages, or presence for join and leave). */
export interface Fanout {
  canvasId: string;
  channel: string;
  type: 'message' | 'join' | 'leave';
  actorId: string;
  /** The serialized server frame, delivered as is. */
  frame: string;
}

export interface RealtimeCoordination extends Lifecycle {
  /** For the start line and logs. */
  readonly kind: 'local' | 'redis';
  /** Takes a slot for a new socket, or says why not (the 4429 reason). Decided atomically across nodes. */
  claimSlot(claim: SlotClaim): Promise<SlotRefusal | null>;
  /** Gives the slot back (the socket is gone). */
  releaseSlot(claim: SlotClaim): Promise<void>;
  /** Counts the socket in the channel's presence: true when the person was on no node yet (the hub announces `join`). */
  arrive(canvasId: string, channel: string, connectionId: string, user: PresenceUser): Promise<boolean>;
  /** Uncounts it: the person when that was their last socket on the channel anywhere (the hub announces `leave`), else null. */
  depart(canvasId: string, channel: string, connectionId: string, actorId: string): Promise<PresenceUser | null>;
  /** Everyone on the channel, once each, in order of arrival. */
  users(canvasId: string, channel: string): Promise<PresenceUser[]>;
  /** Sends a frame to the other nodes' sockets (this node's own sockets got it from the hub already). */
  broadcast(fanout: Fanout): void;
  /**
   * Where frames from elsewhere go: other nodes' broadcasts, and the `leave`
   * of people whose node died (those reach every node, this one included).
   * Set once, by the hub, before start.
   */
  onFanout(deliver: (fanout: Fanout) => void): void;
}
