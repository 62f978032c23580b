// One-click unsubscribe (RFC 8058) for the emails a person gets: each message
// names, in its List-Unsubscribe header and its footer, a link that turns off
// that kind of email for that person (or, for submission emails, that
// canvas's). The link's token is the credential: the person, the kind and
// the canvas, signed with the instance secret. It does not expire (a link in
// an old email still works) and can do nothing but turn that one choice off.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import { KINDS, type Kind } from './preferences.ts';

/** What one link turns off: a kind of email, or new-submission email for one canvas. */
export type Unsubscribe = { userId: string; kind: Kind } | { userId: string; kind: 'submissions'; canvasId: string };

export const UNSUBSCRIBE_PATH = '/notifications/unsubscribe';
/** Longer than any token this server makes (ids are 20 characters): anything past it is refused unread. */
const MAX_TOKEN_LENGTH = 400;
/** Keeps these signatures apart from anything else the instance secret signs. */
const LABEL = 'easel unsubscribe v1\n';

const b64url = (bytes: Buffer) => bytes.toString('base64url');

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret)
    .update(LABEL + payload)
    .digest();
}

export function unsubscribeToken(secret: Buffer, u: Unsubscribe): string {
  const payload = b64url(Buffer.from(JSON.stringify(u.kind === 'submissions' ? [u.userId, u.kind, u.canvasId] : [u.userId, u.kind])));
  return `${payload}.${b64url(mac(secret, payload))}`;
}

/** What a token turns off, or null for anything this server did not sign. */
export function readUnsubscribe(secret: Buffer, token: string): Unsubscribe | null {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const dot = token.indexOf('.');
  if (dot < 0) return null;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = mac(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string')) return null;
  const [userId, kind, canvasId] = fields as string[];
  if (kind === 'submissions' && fields.length === 3) return { userId: userId!, kind, canvasId: canvasId! };
  if ((KINDS as readonly string[]).includes(kind!) && fields.length === 2) return { userId: userId!, kind: kind as Kind };
  return null;
}

export function unsubscribeUrl(config: Pick<Config, 'baseUrl'>, secret: Buffer, u: Unsubscribe): string {
  return `${config.baseUrl}${UNSUBSCRIBE_PATH}?t=${unsubscribeToken(secret, u)}`;
}

/** The emails each kind's link stops, in the words of the dashboard's notification settings. */
const STOPS: Record<Kind, string> = {
  shared_with_me: 'emails when someone adds you to a canvas',
  guest_invite: 'emails about guest invites',
  ownership: 'emails when a canvas you own changes owner',
  share_expiring: 'emails when a share you own is about to expire',
  ai_cap: 'emails when a canvas you own reaches its AI spend cap',
  webhook_paused: 'emails when a webhook of a canvas you own is paused',
};

export function whatItStops(u: Unsubscribe, canvasTitle: string | null): string {
  if (u.kind === 'submissions') return `emails about new submissions to ${canvasTitle === null ? 'a canvas' : `"${canvasTitle}"`}`;
  return STOPS[u.kind];
}
