// Subdomain mode without a shared cookie domain: each canvas host holds its
// own host-only session, made from the base host's through a one-time
// handoff. A canvas session (canvas_id set) counts on that canvas's host
// only; parent_hash names the base session it came from, so signing out
// there ends it too. A handoff is a single-use code, bound to one canvas and
// to the browser that started it (state_hash: the canvas host's state cookie).
export default `
ALTER TABLE sessions ADD COLUMN canvas_id TEXT;
ALTER TABLE sessions ADD COLUMN parent_hash TEXT;
CREATE INDEX sessions_parent ON sessions(parent_hash) WHERE parent_hash IS NOT NULL;
ALTER TABLE guest_sessions ADD COLUMN parent_hash TEXT;
CREATE INDEX guest_sessions_parent ON guest_sessions(parent_hash) WHERE parent_hash IS NOT NULL;

CREATE TABLE sign_in_handoffs (
  code_hash TEXT PRIMARY KEY,
  canvas_id TEXT,
  state_hash TEXT NOT NULL,
  user_id TEXT,
  invite_id TEXT,
  parent_hash TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
`;
