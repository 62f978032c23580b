// Connections (spec "Connections rules"): admin-defined outbound HTTPS
// profiles, their protected headers (encrypted at rest, never returned) and
// per-canvas grants.
export default `
CREATE TABLE connection_profiles (
  name TEXT PRIMARY KEY,
  -- one exact https origin, normalized (lowercase host, default port dropped)
  origin TEXT NOT NULL,
  -- JSON array of methods, a subset of GET HEAD POST PUT PATCH DELETE
  methods TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
-- AES-256-GCM under EASEL_SECRET_KEY, a fresh 12-byte nonce per value; the
-- profile and header names are the associated data, so a value cannot be
-- moved to another slot. key_id tells which key sealed it.
CREATE TABLE connection_protected_headers (
  profile_name TEXT NOT NULL REFERENCES connection_profiles(name) ON DELETE CASCADE,
  header TEXT NOT NULL,
  key_id TEXT NOT NULL,
  nonce BLOB NOT NULL,
  ciphertext BLOB NOT NULL,
  PRIMARY KEY (profile_name, header)
);
CREATE TABLE connection_grants (
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  profile_name TEXT NOT NULL REFERENCES connection_profiles(name) ON DELETE CASCADE,
  granted_at INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, profile_name)
);
CREATE INDEX connection_grants_profile ON connection_grants(profile_name);
`;
