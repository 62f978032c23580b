// The notification outbox (src/notifications/): a request records a message
// as one row in its own transaction; a worker on some node claims it with a
// lease (lease_until, lease_node), sends it, and marks it sent, or schedules
// the next attempt (next_attempt_at) until its 24 hours are up (failed).
// Sent and failed rows stay 30 days for the admin view.
export default `
CREATE TABLE notification_outbox (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  recipient TEXT NOT NULL,
  subject TEXT NOT NULL,
  text_body TEXT NOT NULL,
  html_body TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0,
  lease_node TEXT,
  last_error TEXT,
  finished_at INTEGER,
  -- A message meant once (one cap email per canvas and month): a second insert with the key is dropped.
  dedupe_key TEXT UNIQUE
);
CREATE INDEX notification_outbox_due ON notification_outbox(state, next_attempt_at);
CREATE INDEX notification_outbox_recent ON notification_outbox(created_at);
`;
