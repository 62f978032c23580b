// Browser drafts (spec "Canvas publication state"): one per person and canvas,
// a full copy of the file list it started from, so a pruned base version
// never takes the draft's files with it. A row is edited when its content
// differs from the base (`hash IS NOT base_hash`); hash NULL means deleted in
// the draft, base_hash NULL means added in the draft.
export default `
CREATE TABLE drafts (
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  base_version_id TEXT,
  base_version_number INTEGER,
  stale_version_id TEXT,
  stale_version_number INTEGER,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, user_id)
) WITHOUT ROWID;

CREATE TABLE draft_files (
  canvas_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  path TEXT NOT NULL,
  hash TEXT,
  base_hash TEXT,
  size INTEGER NOT NULL,
  mime TEXT NOT NULL,
  PRIMARY KEY (canvas_id, user_id, path),
  FOREIGN KEY (canvas_id, user_id) REFERENCES drafts(canvas_id, user_id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX draft_files_hash ON draft_files(hash);
CREATE INDEX draft_files_base_hash ON draft_files(base_hash);
`;
