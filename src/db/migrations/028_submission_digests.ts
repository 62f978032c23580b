// New submissions waiting for their canvas's hourly digest email
// (src/notifications/submission-digest.ts): a count per canvas and
// collection since the last digest, and when the first of them arrived. The
// digest deletes the canvas's rows and records its message in the outbox in
// one transaction: a restart neither loses nor repeats a digest.
export default `
CREATE TABLE submission_digest_counts (
  canvas_id TEXT NOT NULL,
  collection TEXT NOT NULL,
  n INTEGER NOT NULL,
  since INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, collection)
);
CREATE INDEX submission_digest_counts_since ON submission_digest_counts(since);
`;
