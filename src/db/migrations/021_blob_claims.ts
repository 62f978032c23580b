// Blob holds and deletions every node can see (src/blobs/shared-claims.ts):
// with a shared database and bucket, a write on one node holds the blobs it
// is about to check in the bucket, and a collection on another marks a blob
// before deleting it. Each looks for the other's row after writing its own,
// so a deletion never lands under a write that found the blob present.
// Unused on the embedded engine, where one process holds both in memory.
export default `
CREATE TABLE blob_holds (
  hash TEXT NOT NULL,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (hash, holder)
);
CREATE INDEX blob_holds_holder ON blob_holds(holder);
CREATE TABLE blob_deletions (
  hash TEXT PRIMARY KEY,
  node TEXT NOT NULL,
  started_at INTEGER NOT NULL
);
`;
