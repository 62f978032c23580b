// Staged upload sessions (Deploy API "Staged upload"). They live in the
// database so a restart keeps every open handle usable.
export default `
-- id is the uploadId handed to the client. manifest is the normalized entry
-- list as JSON ([{path, hash, size, mime}]). actor_id is the user the session
-- acts for (the canvas owner for key-based writes). lease_until is the end of
-- the running finalize's 60-second lease (0 when free).
CREATE TABLE upload_sessions (
  id TEXT PRIMARY KEY,
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  actor_id TEXT NOT NULL,
  manifest TEXT NOT NULL,
  file_count INTEGER NOT NULL,
  total_bytes INTEGER NOT NULL,
  release_id TEXT,
  expected_token TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'consumed')),
  lease_until INTEGER NOT NULL DEFAULT 0,
  consumed_at INTEGER,
  consumed_version_id TEXT
);
CREATE INDEX upload_sessions_canvas ON upload_sessions(canvas_id);
CREATE INDEX upload_sessions_expires ON upload_sessions(expires_at);

-- One row per distinct hash of a session's manifest, with its declared size.
-- staged = 1 once the bytes are in the blob store for this canvas (uploaded
-- through this session, or already held by the canvas at begin).
CREATE TABLE upload_blobs (
  upload_id TEXT NOT NULL REFERENCES upload_sessions(id) ON DELETE CASCADE,
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  staged INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (upload_id, hash)
) WITHOUT ROWID;
-- Blob garbage collection and "does this canvas hold the blob" look hashes up.
CREATE INDEX upload_blobs_hash ON upload_blobs(hash);
`;
