// Authoring: canvases a canvas's page published for its visitor. The canvas
// row is an ordinary canvas (owned by that visitor); this table keeps what
// authoring adds: where it came from, the share's access rung as asked
// (`private`, `whole_org`, `public_link`, `password`), tags, free-form
// metadata and the revocation. The ledger counts creations for the daily
// quota, failed publishes included, and is never decremented.
export default `
CREATE TABLE authored_canvases (
  canvas_id TEXT PRIMARY KEY REFERENCES canvases(id) ON DELETE CASCADE,
  source_canvas_id TEXT NOT NULL,
  created_by TEXT NOT NULL,
  access TEXT NOT NULL,
  tags TEXT NOT NULL,
  metadata TEXT NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX authored_canvases_created_by ON authored_canvases(created_by);

CREATE TABLE authoring_creations (
  user_id TEXT NOT NULL,
  canvas_id TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX authoring_creations_user ON authoring_creations(user_id, created_at);
`;
