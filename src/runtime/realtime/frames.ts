// The realtime wire format (spec: Events / Realtime WebSocket): parsing of
// client frames and the server frames. Pure: no IO.
import type { PresenceUser, Sender } from '../../../sdk/wire.ts';
import { REALTIME_LIMITS } from './limits.ts';

export type ClientFrame =
  | { type: 'subscribe'; channel: string }
  | { type: 'unsubscribe'; channel: string }
  | { type: 'publish'; channel: string; event: string; data: unknown }
  | { type: 'presence'; channel: string };

export type FrameErrorCode = 'MESSAGE_TOO_LARGE' | 'INVALID_FRAME' | 'CHANNEL_NAME_TOO_LARGE' | 'UNKNOWN_FRAME';

export type ParsedFrame = { ok: true; frame: ClientFrame } | { ok: false; code: FrameErrorCode; message: string };

export type { PresenceUser, Sender } from '../../../sdk/wire.ts';

export const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

const fail = (code: FrameErrorCode, message: string): ParsedFrame => ({ ok: false, code, message });

/** One incoming frame: size first, then JSON, then its shape. Binary frames are not JSON text. */
export function parseFrame(raw: string | Buffer): ParsedFrame {
  if (typeof raw !== 'string') {
    if (raw.byteLength > REALTIME_LIMITS.frameBytes)
      return fail('MESSAGE_TOO_LARGE', `frames are at most ${REALTIME_LIMITS.frameBytes} bytes`);
    return fail('INVALID_FRAME', 'frames are JSON text');
  }
  if (byteLength(raw) > REALTIME_LIMITS.frameBytes)
    return fail('MESSAGE_TOO_LARGE', `frames are at most ${REALTIME_LIMITS.frameBytes} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return fail('INVALID_FRAME', 'the frame is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('INVALID_FRAME', 'a frame is a JSON object');
  const f = value as Record<string, unknown>;
  if (typeof f.type !== 'string') return fail('INVALID_FRAME', 'a frame needs a string `type`');
  if (f.type !== 'subscribe' && f.type !== 'unsubscribe' && f.type !== 'publish' && f.type !== 'presence') {
    return fail('UNKNOWN_FRAME', 'type must be subscribe, unsubscribe, publish or presence');
  }
  const channel = f.channel;
  if (typeof channel !== 'string' || channel === '') return fail('INVALID_FRAME', 'a frame needs a non-empty string `channel`');
  if (byteLength(channel) > REALTIME_LIMITS.channelNameBytes) {
    return fail('CHANNEL_NAME_TOO_LARGE', `channel names are at most ${REALTIME_LIMITS.channelNameBytes} bytes`);
  }
  if (f.type !== 'publish') return { ok: true, frame: { type: f.type, channel } };
  if (f.event !== undefined && f.event !== null && typeof f.event !== 'string') return fail('INVALID_FRAME', '`event` must be a string');
  return {
    ok: true,
    frame: { type: 'publish', channel, event: typeof f.event === 'string' ? f.event : '', data: f.data === undefined ? null : f.data },
  };
}

// Server frames, serialized once per fan-out.
export const frames = {
  subscribed: (channel: string) => JSON.stringify({ type: 'subscribed', channel }),
  message: (channel: string, event: string, data: unknown, from: Sender) =>
    JSON.stringify({ type: 'message', channel, event, data, from: { id: from.id, name: from.name, canvasRole: from.canvasRole } }),
  presence: (channel: string, users: PresenceUser[]) => JSON.stringify({ type: 'presence', channel, users }),
  membership: (type: 'join' | 'leave', channel: string, user: PresenceUser) =>
    JSON.stringify({ type, channel, user: { id: user.id, name: user.name } }),
  error: (code: string, message: string) => JSON.stringify({ type: 'error', code, message }),
  denied: (channel: string, message: string) => JSON.stringify({ type: 'error', code: 'PERMISSION_DENIED', channel, message }),
  /**
   * Not a reply: the server took the channel away (role or policy changed).
   * `unsubscribed: true` tells it apart from the refusal of an operation the
   * client has in flight on the same channel.
   */
  revoked: (channel: string) =>
    JSON.stringify({
      type: 'error',
      code: 'PERMISSION_DENIED',
      channel,
      message: 'your role may no longer subscribe to this channel',
      unsubscribed: true,
    }),
  /** With the HTTP refusal's details (capability, backendEnabled, reason, hint), so the SDK's CapabilityDisabledError is the same either way. */
  capabilityDisabled: (refusal: { message: string; extra: Record<string, unknown> }) =>
    JSON.stringify({ type: 'error', code: 'CAPABILITY_DISABLED', message: refusal.message, ...refusal.extra, capability: 'realtime' }),
};
