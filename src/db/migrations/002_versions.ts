// Canvas versions and their file manifests. A version's files point at blobs by sha256.
export default `
CREATE TABLE versions (
  id TEXT PRIMARY KEY,
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('api', 'upload', 'editor', 'zip', 'folder', 'paste')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'ready')),
  created_by TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  file_count INTEGER NOT NULL,
  total_bytes INTEGER NOT NULL,
  release_id TEXT
);
CREATE UNIQUE INDEX versions_canvas_number ON versions(canvas_id, number);
CREATE INDEX versions_canvas_release ON versions(canvas_id, release_id);

CREATE TABLE version_files (
  version_id TEXT NOT NULL REFERENCES versions(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  mime TEXT NOT NULL,
  PRIMARY KEY (version_id, path)
) WITHOUT ROWID;
CREATE INDEX version_files_hash ON version_files(hash);
`;
