// Where each node runs (host, data directory, process), so that a node
// started again after a crash recognizes the run it replaces and releases
// that run's work at once instead of after its heartbeat runs out; and which
// node holds a staged upload's finalize lease, so that release is possible.
export default `
ALTER TABLE nodes ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE nodes ADD COLUMN data_dir TEXT NOT NULL DEFAULT '';
ALTER TABLE nodes ADD COLUMN pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE upload_sessions ADD COLUMN lease_node TEXT;
`;
