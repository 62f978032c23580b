// AI chat accounting: one row per /ai/chat request that passed its checks.
// A row is inserted 'reserved' (with an upper-bound estimate that counts
// against the caps while the call runs) and settled exactly once with the
// provider's usage and the real cost.
export default `
CREATE TABLE ai_calls (
  id TEXT PRIMARY KEY,
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  -- a user id, or guest:<inviteId>
  actor_id TEXT NOT NULL,
  actor_kind TEXT NOT NULL CHECK (actor_kind IN ('member', 'guest')),
  model TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('reserved', 'settled')),
  reserved_usd REAL NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_input_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  -- UTC windows of created_at: yyyy-mm-dd and yyyy-mm
  day TEXT NOT NULL,
  month TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  settled_at INTEGER,
  outcome TEXT CHECK (outcome IN ('ok', 'upstream_error', 'aborted', 'usage_timeout')),
  CHECK ((state = 'settled') = (outcome IS NOT NULL))
);
CREATE INDEX ai_calls_actor_day ON ai_calls(actor_id, day);
CREATE INDEX ai_calls_canvas_month ON ai_calls(canvas_id, month);
CREATE INDEX ai_calls_day ON ai_calls(day);
CREATE INDEX ai_calls_reserved ON ai_calls(state) WHERE state = 'reserved';
`;
