// Runtime API core: KV (shared and per-viewer), runtime files, legacy guest
// invites and sessions, per-canvas daily usage counters.
export default `
-- owner_id is '' for the shared scope, the caller's id (user id or guest:<inviteId>) for 'user'.
-- value is JSON text as JSON.stringify wrote it (a stored null is the text 'null').
CREATE TABLE kv (
  canvas_id TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('shared', 'user')),
  owner_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, scope, owner_id, key)
) WITHOUT ROWID;

CREATE TABLE files (
  id TEXT PRIMARY KEY,
  canvas_id TEXT NOT NULL,
  name TEXT NOT NULL,
  size INTEGER NOT NULL,
  mime TEXT NOT NULL,
  hash TEXT NOT NULL,
  scope TEXT NOT NULL CHECK (scope IN ('shared', 'submission')),
  uploaded_by TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX files_canvas ON files(canvas_id, created_at);
-- Blob garbage collection asks whether a hash is still referenced.
CREATE INDEX files_hash ON files(hash);

CREATE TABLE guest_invites (
  id TEXT PRIMARY KEY,
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX guest_invites_canvas ON guest_invites(canvas_id);

CREATE TABLE guest_sessions (
  token_hash TEXT PRIMARY KEY,
  invite_id TEXT NOT NULL REFERENCES guest_invites(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX guest_sessions_invite ON guest_sessions(invite_id);

-- day is the UTC date (YYYY-MM-DD). Counters only: never keys, names or values.
CREATE TABLE usage_daily (
  canvas_id TEXT NOT NULL,
  day TEXT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  kv_reads INTEGER NOT NULL DEFAULT 0,
  kv_writes INTEGER NOT NULL DEFAULT 0,
  file_bytes_in INTEGER NOT NULL DEFAULT 0,
  file_bytes_out INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (canvas_id, day)
) WITHOUT ROWID;
`;
