// Canvas webhooks (src/webhooks/): each canvas's hooks, and their deliveries
// as a durable queue claimed with a lease like the notification outbox (one
// node sends each row). A delivery keeps its event's data as recorded, so a
// retry sends the same body. The last 50 finished deliveries per hook stay
// for the dashboard; `failing_since` is when a hook's unbroken run of
// failures began (cleared by a success): 24 hours of it pause the hook.
export default `
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  canvas_id TEXT NOT NULL REFERENCES canvases(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  -- Comma-separated event names, with a comma before the first and after the last.
  events TEXT NOT NULL,
  -- The signing secret: sealed JSON under EASEL_SECRET_KEY, or the plain value when the instance has no key.
  secret TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  failing_since INTEGER,
  paused_at INTEGER
);
CREATE INDEX webhooks_canvas ON webhooks(canvas_id);
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  hook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  canvas_id TEXT NOT NULL,
  event TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0,
  lease_node TEXT,
  http_status INTEGER,
  duration_ms INTEGER,
  last_error TEXT,
  last_attempt_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_attempt_at);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(hook_id, created_at);
`;
