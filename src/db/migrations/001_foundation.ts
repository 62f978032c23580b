// Users, sessions, canvases and their members, instance settings, the audit log.
export default `
CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name TEXT NOT NULL,
  avatar_url TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  can_publish_public INTEGER NOT NULL DEFAULT 1,
  org_id TEXT REFERENCES orgs(id),
  created_at INTEGER NOT NULL
);

CREATE TABLE sessions (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  renewed_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

CREATE TABLE canvases (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL,
  title TEXT NOT NULL,
  owner_id TEXT NOT NULL REFERENCES users(id),
  access_mode TEXT NOT NULL DEFAULT 'restricted' CHECK (access_mode IN ('restricted', 'whole_org', 'public_link')),
  password_hash TEXT,
  password_version INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER,
  key_hash TEXT NOT NULL UNIQUE,
  publication_token TEXT NOT NULL,
  current_version_id TEXT,
  cap_backend INTEGER NOT NULL DEFAULT 1,
  cap_kv INTEGER NOT NULL DEFAULT 1,
  cap_files INTEGER NOT NULL DEFAULT 1,
  cap_ai INTEGER NOT NULL DEFAULT 0,
  cap_realtime INTEGER NOT NULL DEFAULT 1,
  cap_authoring INTEGER NOT NULL DEFAULT 0,
  ai_audience TEXT NOT NULL DEFAULT 'editors' CHECK (ai_audience IN ('editors', 'viewers')),
  connections_audience TEXT NOT NULL DEFAULT 'editors' CHECK (connections_audience IN ('editors', 'viewers')),
  guest_ai INTEGER NOT NULL DEFAULT 0,
  guest_ai_monthly_usd REAL NOT NULL DEFAULT 0,
  runtime_policy TEXT,
  runtime_policy_revision TEXT,
  listed_for_access INTEGER NOT NULL DEFAULT 0,
  gallery_listed INTEGER NOT NULL DEFAULT 0,
  archived_at INTEGER,
  disabled_at INTEGER,
  disabled_reason TEXT,
  deleted_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
-- A deleted canvas frees its slug.
CREATE UNIQUE INDEX canvases_slug ON canvases(slug) WHERE deleted_at IS NULL;
CREATE INDEX canvases_owner ON canvases(owner_id);

CREATE TABLE canvas_members (
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('editor', 'viewer')),
  added_at INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, user_id)
) WITHOUT ROWID;
CREATE INDEX canvas_members_user ON canvas_members(user_id);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Who did what to which canvas. Never values or secrets.
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  actor_id TEXT,
  actor_kind TEXT NOT NULL,
  canvas_id TEXT,
  action TEXT NOT NULL,
  detail TEXT
);
CREATE INDEX audit_log_canvas ON audit_log(canvas_id, at);
`;
