// Policy-driven runtime data: collection records (authored JSON records,
// governed by the canvas's runtime policy) and submissions (one record per
// user and collection). Values are JSON text as JSON.stringify wrote it.
export default `
-- id: server-assigned, time-prefixed so key order is creation order; author_id is immutable.
CREATE TABLE collection_records (
  canvas_id TEXT NOT NULL,
  collection TEXT NOT NULL,
  id TEXT NOT NULL,
  author_id TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, collection, id)
) WITHOUT ROWID;
-- An author's records: own-only pages in id order, and the per-author quota across collections.
CREATE INDEX collection_records_author ON collection_records(canvas_id, author_id, collection, id);

CREATE TABLE submissions (
  canvas_id TEXT NOT NULL,
  collection TEXT NOT NULL,
  user_id TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, collection, user_id)
) WITHOUT ROWID;
-- The per-author quota across collections.
CREATE INDEX submissions_user ON submissions(canvas_id, user_id);
`;
