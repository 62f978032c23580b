// Each person's notification choices (CONTRACT §9, tranche 3): every kind on
// unless turned off; new-submission mail per canvas they own, off unless set
// to `immediate` or `hourly`.
import { tx, type Sql } from '../db/sql.ts';

export const KINDS = ['shared_with_me', 'guest_invite', 'ownership', 'share_expiring', 'ai_cap', 'webhook_paused'] as const;
export type Kind = (typeof KINDS)[number];
export const SUBMISSION_MODES = ['off', 'immediate', 'hourly'] as const;
export type SubmissionMode = (typeof SUBMISSION_MODES)[number];

export type Preferences = Record<Kind, boolean> & { submissions: Record<string, SubmissionMode> };

export interface PreferenceChange {
  kinds: Partial<Record<Kind, boolean>>;
  submissions: Record<string, SubmissionMode>;
}

const SUBMISSIONS = 'submissions';

export class PreferenceStore {
  constructor(private readonly sql: Sql) {}

  async of(userId: string): Promise<Preferences> {
    const rows = await this.sql.all<{ kind: string; canvas_id: string; value: string }>(
      'SELECT kind, canvas_id, value FROM notification_preferences WHERE user_id = ?1',
      userId,
    );
    const prefs: Preferences = {
      shared_with_me: true,
      guest_invite: true,
      ownership: true,
      share_expiring: true,
      ai_cap: true,
      webhook_paused: true,
      submissions: {},
    };
    for (const r of rows) {
      if (r.kind === SUBMISSIONS) prefs.submissions[r.canvas_id] = r.value as SubmissionMode;
      else if ((KINDS as readonly string[]).includes(r.kind)) prefs[r.kind as Kind] = r.value === 'on';
    }
    return prefs;
  }

  /** Whether `userId` wants mail of `kind` (on unless they turned it off). */
  async wants(userId: string, kind: Kind): Promise<boolean> {
    const r = await this.sql.get<{ value: string }>(
      "SELECT value FROM notification_preferences WHERE user_id = ?1 AND kind = ?2 AND canvas_id = ''",
      userId,
      kind,
    );
    return r?.value !== 'off';
  }

  /** How `userId` wants to hear of new submissions on `canvasId` (off unless set). */
  async submissionMode(userId: string, canvasId: string): Promise<SubmissionMode> {
    const r = await this.sql.get<{ value: string }>(
      'SELECT value FROM notification_preferences WHERE user_id = ?1 AND kind = ?2 AND canvas_id = ?3',
      userId,
      SUBMISSIONS,
      canvasId,
    );
    return (r?.value as SubmissionMode | undefined) ?? 'off';
  }

  async change(userId: string, change: PreferenceChange): Promise<void> {
    const rows: Array<[string, string, string]> = [
      ...Object.entries(change.kinds).map(([kind, on]): [string, string, string] => [kind, '', on ? 'on' : 'off']),
      ...Object.entries(change.submissions).map(([canvasId, mode]): [string, string, string] => [SUBMISSIONS, canvasId, mode]),
    ];
    await this.sql.write(function* () {
      for (const [kind, canvasId, value] of rows) {
        if (kind === SUBMISSIONS && value === 'off') {
          yield* tx.run('DELETE FROM notification_preferences WHERE user_id = ?1 AND kind = ?2 AND canvas_id = ?3', userId, kind, canvasId);
          continue;
        }
        yield* tx.run(
          `INSERT INTO notification_preferences (user_id, kind, canvas_id, value) VALUES (?1, ?2, ?3, ?4)
           ON CONFLICT (user_id, kind, canvas_id) DO UPDATE SET value = excluded.value`,
          userId,
          kind,
          canvasId,
          value,
        );
      }
    });
  }
}
