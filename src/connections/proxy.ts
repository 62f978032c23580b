// One request through a Connection, after the runtime pipeline admitted the
// caller: the profile for this canvas, the audience and method rules, the
// shaped request, the limits, then the upstream under one deadline. Throws
// AppError; returns the upstream's answer (the route shapes the response).
import type { CanvasRole } from '../canvases/record.ts';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { HTTP_METHODS, type HttpMethod } from '../policy/document.ts';
import { headerPlace, open } from '../secrets/sealed.ts';
import { profileStateFor } from './effective.ts';
import type { ConnectionsFeature } from './feature.ts';
import { outboundHeaders, relativeTarget } from './request-shape.ts';
import type { Profile } from './store.ts';
import { sendUpstream, type UpstreamAnswer } from './upstream.ts';

export interface ConnectionCaller {
  canvasId: string;
  connectionsAudience: 'editors' | 'viewers';
  runtimePolicy: unknown;
  actorId: string;
  role: CanvasRole;
  kind: 'member' | 'guest';
}

export interface ConnectionCall {
  profile: string;
  method: string;
  /** Raw (percent-encoded) path after `/connections/{profile}/`. */
  suffix: string;
  /** Raw query without `?`, or null. */
  query: string | null;
  headers: Headers;
  /** Reads the request body under the cap (null for GET/HEAD); called after the cheap checks. */
  readBody: (maxBytes: number) => Promise<Uint8Array | null>;
  /** The caller going away cancels the upstream request. */
  signal: AbortSignal;
}

const HINTS = {
  not_granted: (name: string) => `No Connection named ${name} is granted to this canvas; an instance administrator can grant one.`,
  disabled: (name: string) => `The Connection ${name} is disabled by an instance administrator.`,
  secret_key_missing: (name: string) => `The Connection ${name} has protected headers and the instance has no EASEL_SECRET_KEY.`,
  secret_key_changed: (name: string) =>
    `The protected headers of the Connection ${name} were sealed with another EASEL_SECRET_KEY; an administrator must enter them again.`,
};

class DeadlineExceeded extends Error {}

export async function proxyConnection(
  ctx: Pick<Core, 'config' | 'connections' | 'events' | 'log'>,
  feature: ConnectionsFeature,
  caller: ConnectionCaller,
  call: ConnectionCall,
): Promise<UpstreamAnswer> {
  const { tuning } = feature;
  const profile = usableProfile(ctx, caller.canvasId, call.profile);
  checkAudience(caller, profile.name);
  const method = checkMethod(caller, profile, call.method);
  const target = relativeTarget(profile.origin, call.suffix, call.query, tuning.maxUrlBytes);
  const headers = outboundHeaders(call.headers, [ctx.config.proxyEmailHeader, ctx.config.proxyNameHeader], tuning);
  // Applied last: a protected header wins over a caller's header of the same name.
  for (const [name, value] of protectedHeaders(ctx, profile)) headers.set(name, value);
  await feature.limits.hit(caller.canvasId, profile.name, caller.actorId);
  const body = method === 'GET' || method === 'HEAD' ? null : await call.readBody(tuning.maxRequestBytes);
  const release = await feature.limits.acquire(caller.canvasId);
  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DeadlineExceeded()), tuning.deadlineMs);
  const signal = AbortSignal.any([deadline.signal, call.signal]);
  const log = (fields: Record<string, unknown>) =>
    ctx.log.info('connection request', {
      canvasId: caller.canvasId,
      profile: profile.name,
      method,
      durationMs: Math.round(performance.now() - started),
      ...fields,
    });
  try {
    const answer = await sendUpstream(feature.egress, { origin: profile.origin, method, target, headers, body }, tuning, signal);
    log({ status: answer.status, redirects: answer.redirects, bytes: answer.body?.byteLength ?? 0 });
    ctx.events.emit('connections.finished', { outcome: `upstream_${Math.floor(answer.status / 100)}xx` });
    return answer;
  } catch (err) {
    const failure = platformFailure(err, deadline.signal, tuning.deadlineMs);
    log({ code: failure.errorCode });
    ctx.events.emit('connections.finished', { outcome: failure.errorCode });
    throw failure;
  } finally {
    clearTimeout(timer);
    release();
  }
}

function usableProfile(ctx: Pick<Core, 'config' | 'connections'>, canvasId: string, name: string): Profile {
  const state = profileStateFor(ctx, canvasId, name);
  if (state.usable) return state.profile;
  throw new AppError('CAPABILITY_DISABLED', `the Connection ${name} is not available on this canvas`, {
    capability: 'connections',
    backendEnabled: true,
    reason: 'operator_disabled',
    hint: HINTS[state.reason](name),
  });
}

/** The policy entry for this profile, when the canvas has one (names on Object.prototype never match). */
function policyEntry(policy: unknown, name: string): { audience?: unknown; methods?: unknown } | null {
  if (typeof policy !== 'object' || policy === null) return null;
  const connections = (policy as Record<string, unknown>).connections;
  if (typeof connections !== 'object' || connections === null || !Object.hasOwn(connections, name)) return null;
  const entry = (connections as Record<string, unknown>)[name];
  return typeof entry === 'object' && entry !== null ? (entry as { audience?: unknown; methods?: unknown }) : null;
}

/** editors: owner and editor; viewers: any admitted signed-in member. Legacy guests never (anonymous never gets here). */
function checkAudience(caller: ConnectionCaller, name: string): void {
  const entry = policyEntry(caller.runtimePolicy, name);
  const audience = entry?.audience === 'viewers' || entry?.audience === 'editors' ? entry.audience : caller.connectionsAudience;
  const allowed = caller.kind === 'member' && (audience === 'viewers' || caller.role === 'owner' || caller.role === 'editor');
  if (!allowed) {
    throw new AppError(
      'PERMISSION_DENIED',
      audience === 'viewers'
        ? 'Connections are for signed-in members of this canvas'
        : 'Connections on this canvas are for its owner and editors',
    );
  }
}

/** The profile's methods intersected with the policy entry's (absent = all approved, [] = none). */
function checkMethod(caller: ConnectionCaller, profile: Profile, method: string): HttpMethod {
  const entry = policyEntry(caller.runtimePolicy, profile.name);
  const policyMethods = Array.isArray(entry?.methods) ? (entry.methods as unknown[]) : null;
  const allowed = HTTP_METHODS.filter((m) => profile.methods.includes(m) && (policyMethods === null || policyMethods.includes(m)));
  const m = HTTP_METHODS.find((x) => x === method);
  if (!m || !allowed.includes(m)) {
    throw new AppError('PERMISSION_DENIED', `${method} is not allowed on the Connection ${profile.name}`, { allowedMethods: allowed });
  }
  return m;
}

function protectedHeaders(ctx: Pick<Core, 'config' | 'connections' | 'log'>, profile: Profile): Array<[string, string]> {
  const sealed = ctx.connections.headers(profile.name);
  if (sealed.length === 0) return [];
  const key = ctx.config.secretKey!;
  return sealed.map((h) => {
    const value = open(key, headerPlace(profile.name, h.header), h);
    if (value === null) {
      // The key id matched, so the row itself is damaged: say so to the admin, not the canvas.
      ctx.log.error('connections: a protected header does not open', { profile: profile.name, header: h.header });
      throw new AppError('CAPABILITY_DISABLED', `the Connection ${profile.name} is not available on this canvas`, {
        capability: 'connections',
        backendEnabled: true,
        reason: 'operator_disabled',
        hint: HINTS.secret_key_changed(profile.name),
      });
    }
    return [h.header, value];
  });
}

function platformFailure(err: unknown, deadline: AbortSignal, deadlineMs: number): AppError {
  if (deadline.aborted) return new AppError('CONNECTION_TIMEOUT', `the upstream did not answer within ${deadlineMs / 1000} s`);
  if (err instanceof AppError) return err;
  // The caller went away (nobody reads this answer), or something unforeseen.
  return new AppError('CONNECTION_UPSTREAM_UNREACHABLE', 'the upstream request failed');
}
