// Personal access tokens (CONTRACT §3): `easel_pat_` + 40 base62 characters,
// stored as SHA-256 only; a deleted token's row is gone.
export default `
CREATE TABLE personal_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  last_used_at INTEGER
);
CREATE INDEX personal_tokens_user ON personal_tokens(user_id);
`;
