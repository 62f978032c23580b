// Policy-driven runtime data: collection records (authored JSON records,
// governed by the canvas's runtime policy) and submissions (one record per
// user and collection). Values are JSON text as JSON.stringify wrote it.
//
// The quotas (per canvas, per author) are checked on every create; counting
// rows would cost a scan of up to 10,000 of them, so triggers keep the counts
// (author_id '' is the canvas's total), exact whatever writes the rows.
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
-- An author's records, for own-only pages in id order.
CREATE INDEX collection_records_author ON collection_records(canvas_id, collection, author_id, id);

CREATE TABLE collection_record_counts (
  canvas_id TEXT NOT NULL,
  author_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, author_id)
) WITHOUT ROWID;

CREATE TRIGGER collection_records_counted AFTER INSERT ON collection_records BEGIN
  INSERT INTO collection_record_counts (canvas_id, author_id, n) VALUES (NEW.canvas_id, NEW.author_id, 1)
    ON CONFLICT (canvas_id, author_id) DO UPDATE SET n = n + 1;
  INSERT INTO collection_record_counts (canvas_id, author_id, n) VALUES (NEW.canvas_id, '', 1)
    ON CONFLICT (canvas_id, author_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER collection_records_uncounted AFTER DELETE ON collection_records BEGIN
  UPDATE collection_record_counts SET n = n - 1 WHERE canvas_id = OLD.canvas_id AND author_id IN (OLD.author_id, '');
END;

CREATE TABLE submissions (
  canvas_id TEXT NOT NULL,
  collection TEXT NOT NULL,
  user_id TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, collection, user_id)
) WITHOUT ROWID;

CREATE TABLE submission_counts (
  canvas_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (canvas_id, user_id)
) WITHOUT ROWID;

CREATE TRIGGER submissions_counted AFTER INSERT ON submissions BEGIN
  INSERT INTO submission_counts (canvas_id, user_id, n) VALUES (NEW.canvas_id, NEW.user_id, 1)
    ON CONFLICT (canvas_id, user_id) DO UPDATE SET n = n + 1;
  INSERT INTO submission_counts (canvas_id, user_id, n) VALUES (NEW.canvas_id, '', 1)
    ON CONFLICT (canvas_id, user_id) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER submissions_uncounted AFTER DELETE ON submissions BEGIN
  UPDATE submission_counts SET n = n - 1 WHERE canvas_id = OLD.canvas_id AND user_id IN (OLD.user_id, '');
END;
`;
