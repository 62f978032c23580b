// Insights without tracking (issue 39): per canvas and UTC day, counts only.
// Visitors are one row per hashed id (HMAC of the instance secret, the day
// and the person), so nodes counting the same person count them once and no
// list of who can be read back. Paths keep a canvas's busiest few per day.
// Rows older than 400 days are removed by housekeeping.
export default `
CREATE TABLE insight_days (
  canvas_id TEXT NOT NULL,
  day TEXT NOT NULL,
  views INTEGER NOT NULL DEFAULT 0,
  api_kv INTEGER NOT NULL DEFAULT 0,
  api_files INTEGER NOT NULL DEFAULT 0,
  api_ai INTEGER NOT NULL DEFAULT 0,
  api_realtime INTEGER NOT NULL DEFAULT 0,
  api_collections INTEGER NOT NULL DEFAULT 0,
  api_submissions INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (canvas_id, day)
) WITHOUT ROWID;

CREATE TABLE insight_visitors (
  canvas_id TEXT NOT NULL,
  day TEXT NOT NULL,
  visitor TEXT NOT NULL,
  PRIMARY KEY (canvas_id, day, visitor)
) WITHOUT ROWID;

CREATE TABLE insight_paths (
  canvas_id TEXT NOT NULL,
  day TEXT NOT NULL,
  path TEXT NOT NULL,
  views INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (canvas_id, day, path)
) WITHOUT ROWID;

CREATE INDEX insight_days_day ON insight_days (day);
CREATE INDEX insight_visitors_day ON insight_visitors (day);
CREATE INDEX insight_paths_day ON insight_paths (day);
`;
