// Channel rights (spec: Events / Channel policy). Pure: the caller passes the
// canvas's runtime policy document and the live role.
import type { CanvasRole } from '../../canvases/record.ts';
import type { AudienceRight, ChannelPolicy } from '../../policy/document.ts';

export interface ChannelRights {
  subscribe: boolean;
  publish: boolean;
  seePresence: boolean;
  participatePresence: boolean;
}

/** Viewers may publish (with attribution) on unconfigured channels with this prefix. */
export const PARTICIPANTS_PREFIX = 'participants:';

function unconfigured(channel: string): ChannelPolicy {
  return {
    subscribe: 'viewers',
    publish: channel.startsWith(PARTICIPANTS_PREFIX) ? 'viewers' : 'editors',
    seePresence: 'viewers',
    participatePresence: 'viewers',
  };
}

/** `none` is nobody (owners included); `editors` is owners and editors; `viewers` is everyone admitted. */
function admits(right: unknown, role: CanvasRole): boolean {
  const r = right as AudienceRight;
  if (r === 'viewers') return true;
  if (r === 'editors') return role === 'owner' || role === 'editor';
  return false;
}

/** The configured policy of `channel`, or null. An odd stored document configures nothing. */
export function configuredPolicy(runtimePolicy: unknown, channel: string): ChannelPolicy | null {
  if (typeof runtimePolicy !== 'object' || runtimePolicy === null) return null;
  const channels = (runtimePolicy as { channels?: unknown }).channels;
  if (typeof channels !== 'object' || channels === null || !Object.hasOwn(channels, channel)) return null;
  const entry = (channels as Record<string, unknown>)[channel];
  return typeof entry === 'object' && entry !== null ? (entry as ChannelPolicy) : null;
}

/** A configured policy overrides the prefix defaults entirely. */
export function channelRights(runtimePolicy: unknown, channel: string, role: CanvasRole): ChannelRights {
  const policy = configuredPolicy(runtimePolicy, channel) ?? unconfigured(channel);
  return {
    subscribe: admits(policy.subscribe, role),
    publish: admits(policy.publish, role),
    seePresence: admits(policy.seePresence, role),
    participatePresence: admits(policy.participatePresence, role),
  };
}
