// Guest invites and guest sessions join the watched tables (src/db/change-signal.ts):
// a guest invite revoked, or a guest signed out, on one node must reach the
// realtime sockets and cached facts of every node. Nothing changes in the
// SQLite schema (its signal is TEMP triggers made when the database opens);
// Postgres gets the tables' triggers (src/db/postgres-migrations.ts).
export default '';
