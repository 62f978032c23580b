// What a canvas's webhooks are made of (CONTRACT §9, tranche 3 "Webhooks"):
// the PUT body (the events a hook may ask for are ./events.ts), and the receiver URL rule
// (https only, no userinfo or fragment, bounded; an IP literal only when it
// is a public address: the egress check at send time covers host names).
import { Type, type Static } from '@sinclair/typebox';
import { classifyAddress } from '../connections/ip.ts';
import { AppError } from '../errors.ts';
import { isIpAddress } from '../net/ip.ts';
import { WEBHOOK_EVENTS, type WebhookEvent } from './events.ts';

/** Hooks per canvas. */
export const MAX_HOOKS = 10;
export const MAX_URL_LENGTH = 2048;
/** Finished deliveries kept per hook (pending ones are always kept). */
export const KEPT_DELIVERIES = 50;

export const PutWebhooksBody = Type.Object(
  {
    hooks: Type.Array(
      Type.Object(
        {
          id: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
          url: Type.String({ minLength: 1, maxLength: MAX_URL_LENGTH }),
          events: Type.Array(Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e))), { minItems: 1, maxItems: WEBHOOK_EVENTS.length }),
          active: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_HOOKS },
    ),
  },
  { additionalProperties: false },
);
export type PutWebhooks = Static<typeof PutWebhooksBody>;

/** The receiver URL as stored, or 400 INVALID_BODY naming what is wrong. */
export function receiverUrl(raw: string, at: string): string {
  const bad = (why: string) => new AppError('INVALID_BODY', `${at}: ${why}`);
  const text = raw.trim();
  if (/\s/.test(text)) throw bad('no spaces');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad('not a URL');
  }
  // Plain http is refused everywhere, loopback included: deliveries are signed, but their data is people's.
  if (url.protocol !== 'https:') throw bad('only https URLs are allowed');
  if (url.username || url.password) throw bad('no userinfo (user:password@) in the URL');
  if (url.hash) throw bad('no fragment');
  if (url.port === '0') throw bad('port 0 is not a port');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIpAddress(host)) {
    const verdict = classifyAddress(host);
    if (!verdict.public) throw bad(`a non-public address (${verdict.range}) is refused; webhooks reach public addresses only`);
  }
  if (url.href.length > MAX_URL_LENGTH) throw bad(`at most ${MAX_URL_LENGTH} characters`);
  return url.href;
}

/** Events as stored: `,a,b,` (LIKE '%,a,%' finds one; the order is WEBHOOK_EVENTS'). */
export function eventsColumn(events: readonly WebhookEvent[]): string {
  return `,${WEBHOOK_EVENTS.filter((e) => events.includes(e)).join(',')},`;
}

export function eventsOf(column: string): WebhookEvent[] {
  return column.split(',').filter((e): e is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(e));
}

const Delivery = Type.Object({
  id: Type.String(),
  event: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  httpStatus: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  attempts: Type.Integer(),
  createdAt: Type.String(),
  lastAttemptAt: Type.Union([Type.String(), Type.Null()]),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});

const Hook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)))),
  active: Type.Boolean(),
  lastDelivery: Type.Union([Delivery, Type.Null()]),
  secret: Type.Optional(Type.String({ description: "a new hook's signing secret: in the PUT answer that created it, never again" })),
});

/** The canvas's hooks (store.ts HookView); never their secrets but once, after PUT. */
export const WebhooksAnswer = Type.Object({ hooks: Type.Array(Hook) });

/** A hook's last deliveries (store.ts DeliveryView). */
export const DeliveriesAnswer = Type.Object({ deliveries: Type.Array(Delivery) });
