// `easel login` approvals waiting for the CLI to collect its token: kept in
// the database (not one process's memory) so the CLI may trade its code with
// any node. The code is stored as SHA-256, used once and short-lived.
export default `
CREATE TABLE cli_logins (
  code_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  challenge TEXT NOT NULL,
  name TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX cli_logins_user ON cli_logins(user_id);
`;
