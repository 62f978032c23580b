// The one-click unsubscribe link of a message in the outbox
// (src/notifications/unsubscribe.ts): sent as its List-Unsubscribe header.
// Null for messages that are no subscription (a guest's invite).
export default `
ALTER TABLE notification_outbox ADD COLUMN unsubscribe_url TEXT;
`;
