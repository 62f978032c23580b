// The events a webhook may ask for, in the order hooks store and list them.
// Its own module, importing nothing, so the dashboard's bundle
// (src/dashboard/ui/webhooks.ts) takes the same list as the server.
export const WEBHOOK_EVENTS = [
  'deploy.published',
  'submission.created',
  'submission.updated',
  'submission.deleted',
  'collection.record.created',
  'collection.record.updated',
  'collection.record.deleted',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
