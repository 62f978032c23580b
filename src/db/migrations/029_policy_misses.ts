// What a canvas's live pages asked for that its runtime policy does not
// configure (a collection or a file group answered COLLECTION_NOT_CONFIGURED):
// the dashboard names them so an owner need not guess why a poll says "not
// configured". One row per canvas, kind and name; noted at most once a minute
// per node, so a busy page costs no write per request.
export default `
CREATE TABLE policy_misses (
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('collection', 'fileGroup')),
  name TEXT NOT NULL,
  last_at INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, kind, name)
);
`;
