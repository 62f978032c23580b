// `easel login` through the browser (issue 22 item 2): the CLI opens
// /auth/cli with a PKCE-style challenge and a loopback port; the signed-in
// person approves; the browser is sent to the loopback port with a one-time
// code; the CLI trades the code and its verifier for a personal access token.
// The token never passes through the browser, and a code is useless without
// the verifier only the CLI that asked holds.
import { createHash } from 'node:crypto';
import { tx, type Sql } from '../db/sql.ts';
import { randomBase62, sha256Hex } from '../ids.ts';

/** How long an approval waits for the CLI to collect its token. */
export const CLI_CODE_TTL_MS = 5 * 60 * 1000;
/** Approvals one person keeps waiting at once (a flood of approvals cannot grow the table without bound). */
const MAX_PENDING_PER_USER = 20;

export interface CliRequest {
  port: number;
  state: string;
  challenge: string;
  /** What the token will be called, e.g. "easel CLI on laptop". */
  name: string;
}

/** The query of /auth/cli, checked; null when anything is off. */
export function parseCliRequest(query: URLSearchParams): CliRequest | null {
  const port = Number(query.get('port'));
  const state = query.get('state') ?? '';
  const challenge = query.get('challenge') ?? '';
  const name = (query.get('name') ?? 'easel CLI').trim();
  if (!Number.isInteger(port) || port < 1024 || port > 65535) return null;
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(state) || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) return null;
  if (name.length === 0 || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) return null;
  return { port, state, challenge, name };
}

export const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Approvals waiting for their CLI, on the storage port: any node may take the code (expired ones are swept by housekeeping). */
export class CliLogins {
  constructor(
    private readonly sql: Sql,
    private readonly now: () => number,
  ) {}

  /** The person approved: a one-time code for the CLI's loopback port. */
  async approve(userId: string, request: CliRequest): Promise<string> {
    const code = randomBase62(32);
    const expiresAt = this.now() + CLI_CODE_TTL_MS;
    await this.sql.write(function* () {
      yield* tx.run(
        'INSERT INTO cli_logins (code_hash, user_id, challenge, name, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)',
        sha256Hex(code),
        userId,
        request.challenge,
        request.name,
        expiresAt,
      );
      // Past the bound, the person's oldest approvals go.
      yield* tx.run(
        `DELETE FROM cli_logins WHERE user_id = ?1 AND code_hash NOT IN (
           SELECT code_hash FROM cli_logins WHERE user_id = ?1 ORDER BY expires_at DESC, code_hash LIMIT ?2)`,
        userId,
        MAX_PENDING_PER_USER,
      );
    });
    return code;
  }

  /** Who approved, once: the code is spent whether or not the verifier matches (DELETE … RETURNING: one taker on any node). */
  async exchange(code: string, verifier: string): Promise<{ userId: string; name: string } | null> {
    const grant = await this.sql.get<{ user_id: string; challenge: string; name: string; expires_at: number }>(
      'DELETE FROM cli_logins WHERE code_hash = ?1 RETURNING user_id, challenge, name, expires_at',
      sha256Hex(code),
    );
    if (!grant || grant.expires_at <= this.now() || challengeOf(verifier) !== grant.challenge) return null;
    return { userId: grant.user_id, name: grant.name };
  }
}
