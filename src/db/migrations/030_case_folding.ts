// easel_fold(text): what every search folds both sides with, so "équipe"
// finds "Équipe" on either engine. Postgres's lower() on this schema's
// columns (COLLATE "C") folds A–Z only, as SQLite's does, so Postgres gets a
// function of its own (postgres-migrations.ts); SQLite defines it on each
// connection (src/db/open.ts). Nothing for SQLite to store.
export default '';
