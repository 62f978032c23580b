// The nodes running on one database, each with its last heartbeat: a node on
// Postgres without Redis runs alone, and one that finds another live node
// refuses to start (limits and realtime would silently split); reservations
// of a node that stopped heartbeating are settled by the others. Unused on
// the embedded engine, where the data directory's lock admits one process.
export default `
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  with_redis INTEGER NOT NULL
);
-- The node an AI reservation runs on: a node that died leaves its reservations to the others to settle.
ALTER TABLE ai_calls ADD COLUMN node_id TEXT;
`;
