import type { Sql } from '../db/sql.ts';
import { randomBase62, sha256Hex } from '../ids.ts';

/** A code is good for one exchange within this time: a redirect is all it has to survive. */
export const HANDOFF_CODE_TTL_MS = 60_000;

/** Who the base host vouches for: a user (by their base session) or a legacy guest (by theirs). */
export type HandoffSubject = { kind: 'user'; userId: string } | { kind: 'guest'; inviteId: string };

export interface RedeemedHandoff {
  subject: HandoffSubject;
  /** The canvas the code was made for (null: no canvas held the label then). */
  canvasId: string | null;
  /** Hash of the base host's session it came from; the canvas session ends with it. */
  parentHash: string;
}

interface Row {
  canvas_id: string | null;
  user_id: string | null;
  invite_id: string | null;
  parent_hash: string;
  expires_at: number;
}

/**
 * Sign-in handoffs from the base host to a canvas host (subdomain mode):
 * sessions are host-only, so a canvas host gets its own session by trading a
 * code the base host made for a signed-in visitor. The code is single-use,
 * short-lived and bound to one canvas, and to the browser that began the
 * handoff on that canvas's host (the hash of its state cookie): a code
 * carried to another host, replayed, or obtained for a handoff some other
 * page began is refused. Codes and states are stored as SHA-256 only.
 */
export class SignInHandoffs {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number,
  ) {}

  /** A fresh state for the canvas host's cookie, and the hash that travels to the base host. */
  newState(): { state: string; stateHash: string } {
    const state = randomBase62(32);
    return { state, stateHash: sha256Hex(state) };
  }

  /** The code for the canvas host (expired ones are swept by housekeeping). */
  async issue(handoff: RedeemedHandoff & { stateHash: string }): Promise<string> {
    const code = randomBase62(43);
    const { subject } = handoff;
    await this.sql.run(
      `INSERT INTO sign_in_handoffs (code_hash, canvas_id, state_hash, user_id, invite_id, parent_hash, expires_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
      sha256Hex(code),
      handoff.canvasId,
      handoff.stateHash,
      subject.kind === 'user' ? subject.userId : null,
      subject.kind === 'guest' ? subject.inviteId : null,
      handoff.parentHash,
      this.now() + HANDOFF_CODE_TTL_MS,
    );
    return code;
  }

  /**
   * The handoff behind `code`, used up by this call whatever the outcome,
   * when it is unexpired, made for `canvasId` (this host's canvas) and begun
   * by the browser holding one of `states` (every state cookie it sent); else null.
   */
  async redeem(code: string, canvasId: string | null, states: string[]): Promise<RedeemedHandoff | null> {
    // DELETE … RETURNING: of two redemptions at once (on any nodes), one gets the row.
    const row = await this.sql.get<Row & { state_hash: string }>(
      'DELETE FROM sign_in_handoffs WHERE code_hash = ?1 RETURNING canvas_id, state_hash, user_id, invite_id, parent_hash, expires_at',
      sha256Hex(code),
    );
    if (!row || row.expires_at <= this.now() || row.canvas_id !== canvasId) return null;
    if (!states.some((state) => sha256Hex(state) === row.state_hash)) return null;
    const subject: HandoffSubject | null =
      row.user_id !== null
        ? { kind: 'user', userId: row.user_id }
        : row.invite_id !== null
          ? { kind: 'guest', inviteId: row.invite_id }
          : null;
    return subject && { subject, canvasId: row.canvas_id, parentHash: row.parent_hash };
  }
}
