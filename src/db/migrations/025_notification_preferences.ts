// What each person turned off (src/notifications/preferences.ts): a row per
// kind they set, and per canvas for new-submission mail (canvas_id '' for
// the kinds that are not per canvas). No row: the kind's default.
export default `
CREATE TABLE notification_preferences (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  canvas_id TEXT NOT NULL DEFAULT '',
  value TEXT NOT NULL,
  PRIMARY KEY (user_id, kind, canvas_id)
);
`;
