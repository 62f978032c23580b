// The foundation: the stores most features build on (who people are, their
// canvases, the audit log, instance settings, Connection profiles), each
// built once here over the kernel and handed by name to what uses it.
import { AuditLog } from './audit/store.ts';
import { IdentityFeature } from './auth/feature.ts';
import { sessionScopeOf } from './auth/session-scope.ts';
import { CanvasStore } from './canvases/store.ts';
import type { Config } from './config.ts';
import { ConnectionStore } from './connections/store.ts';
import { createContext, type AppContext, type ContextOptions } from './context.ts';
import { loadInstanceSecret } from './serve/instance-secret.ts';
import { SettingsService } from './settings/service.ts';

/** The stores and services most features build on: who people are (the identity feature's parts), their canvases, the audit log, instance settings. */
export type Foundation = Pick<IdentityFeature, 'users' | 'sessions' | 'auth' | 'guests' | 'tokens' | 'handoffs'> & {
  audit: AuditLog;
  settings: SettingsService;
  /** Signs gate passes and draft preview tokens (src/serve/instance-secret.ts). */
  instanceSecret: Buffer;
  canvases: CanvasStore;
  /** Connection profiles, their sealed headers and grants. */
  connections: ConnectionStore;
};

/** What composition hands out: the kernel and the foundation. Parts name what they use with Pick<Core, …>; none takes it whole. */
export type Core = AppContext & Foundation;

export async function createFoundation(ctx: AppContext): Promise<Foundation> {
  const { sql, now, log, config } = ctx;
  const canvases = new CanvasStore(sql);
  const audit = new AuditLog(sql, now);
  const identity = new IdentityFeature({ sql, now, config, audit, sessionScope: sessionScopeOf(config, canvases, sql.changes, now) });
  const settings = new SettingsService(sql, config, now, (err) =>
    log.error('instance settings could not be reloaded', { error: err instanceof Error ? err.message : String(err) }),
  );
  await settings.load();
  const connections = new ConnectionStore(sql, (err) =>
    log.error('connection profiles could not be reloaded', { error: err instanceof Error ? err.message : String(err) }),
  );
  await connections.load();
  const instanceSecret = await loadInstanceSecret(sql, now);
  // A provider key an older release stored in plaintext is sealed now, or reported until it can be.
  const secrets = await settings.sealStoredSecrets();
  if (secrets === 'sealed') log.info('the AI provider key set by an admin is now encrypted with EASEL_SECRET_KEY');
  if (secrets === 'plaintext') log.warn('the AI provider key set by an admin is stored unencrypted: set EASEL_SECRET_KEY to encrypt it');
  const { users, sessions, guests, tokens, handoffs, auth } = identity;
  return { users, sessions, guests, tokens, handoffs, auth, audit, settings, instanceSecret, canvases, connections };
}

/** The kernel and the foundation, what createApp composes the features from (the server, the CLI, tests and benches). */
export async function createCore(config: Config, options: ContextOptions = {}): Promise<Core> {
  const ctx = await createContext(config, options);
  try {
    return { ...ctx, ...(await createFoundation(ctx)) };
  } catch (err) {
    // Settings or profiles that cannot be read stop the start with the database closed.
    await ctx.sql.close();
    throw err;
  }
}
