// Rows that only ever grow are trimmed on a schedule: expired sessions
// (people's, guests', canvas hosts'), sign-in handoffs and OIDC sign-ins in
// flight, `easel login` approvals never collected, expired personal access
// tokens a month after they lapsed, audit rows older than
// EASEL_AUDIT_RETENTION_DAYS, insight rows past 400 days, and blob holds and deletion marks a node that
// died left behind (src/blobs/shared-claims.ts). (Staged uploads and
// unreferenced blobs have their own sweeps: deploy/upload, blobs/gc.)
import type { AppContext } from './context.ts';
import { tx, type TxSteps } from './db/sql.ts';
import type { Lifecycle } from './lifecycle.ts';
import { DELETION_STALE_MS } from './blobs/shared-claims.ts';
import { oldestKeptDay } from './insights/store.ts';

const EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** An expired token stays listed this long (so its owner sees why a script stopped), then goes. */
const EXPIRED_TOKENS_KEPT_MS = 30 * DAY_MS;

export type HousekeepingDeps = Pick<AppContext, 'sql' | 'now' | 'log' | 'scheduler' | 'config'>;

export interface Swept {
  sessions: number;
  guestSessions: number;
  handoffs: number;
  oidcLogins: number;
  cliLogins: number;
  tokens: number;
  auditRows: number;
  blobClaims: number;
  insightRows: number;
}

export class Housekeeping implements Lifecycle {
  private cancel: (() => void) | null = null;

  constructor(private readonly ctx: HousekeepingDeps) {}

  start(): void {
    this.cancel = this.ctx.scheduler.interval(EVERY_MS, () => {
      this.sweep().catch((err: unknown) => {
        this.ctx.log.error('housekeeping failed', { error: err instanceof Error ? err.message : String(err) });
      });
    });
  }

  stop(): void {
    this.cancel?.();
    this.cancel = null;
  }

  /** One pass, in one transaction; what it removed, also logged. */
  async sweep(): Promise<Swept> {
    const now = this.ctx.now();
    const auditBefore = now - this.ctx.config.auditRetentionDays * DAY_MS;
    const insightsFrom = oldestKeptDay(now);
    const swept = await this.ctx.sql.write(function* (): TxSteps<Swept> {
      return {
        sessions: yield* tx.run('DELETE FROM sessions WHERE expires_at <= ?1', now),
        guestSessions: yield* tx.run('DELETE FROM guest_sessions WHERE expires_at <= ?1', now),
        handoffs: yield* tx.run('DELETE FROM sign_in_handoffs WHERE expires_at <= ?1', now),
        oidcLogins: yield* tx.run('DELETE FROM oidc_logins WHERE expires_at <= ?1', now),
        cliLogins: yield* tx.run('DELETE FROM cli_logins WHERE expires_at <= ?1', now),
        tokens: yield* tx.run(
          'DELETE FROM personal_tokens WHERE expires_at IS NOT NULL AND expires_at <= ?1',
          now - EXPIRED_TOKENS_KEPT_MS,
        ),
        auditRows: yield* tx.run('DELETE FROM audit_log WHERE at < ?1', auditBefore),
        blobClaims:
          (yield* tx.run('DELETE FROM blob_holds WHERE expires_at <= ?1', now)) +
          (yield* tx.run('DELETE FROM blob_deletions WHERE started_at <= ?1', now - DELETION_STALE_MS)),
        insightRows:
          (yield* tx.run('DELETE FROM insight_days WHERE day < ?1', insightsFrom)) +
          (yield* tx.run('DELETE FROM insight_visitors WHERE day < ?1', insightsFrom)) +
          (yield* tx.run('DELETE FROM insight_paths WHERE day < ?1', insightsFrom)),
      };
    });
    if (Object.values(swept).some((n) => n > 0)) this.ctx.log.info('housekeeping', { ...swept });
    return swept;
  }
}
