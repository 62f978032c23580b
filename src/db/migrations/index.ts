import foundation from './001_foundation.ts';
import versions from './002_versions.ts';
import uploads from './003_uploads.ts';
import runtime from './004_runtime.ts';
import ai from './005_ai.ts';
import connections from './006_connections.ts';
import guestInviteExpiry from './007_guest_invite_expiry.ts';
import serviceWorkers from './008_service_workers.ts';
import collectionsSubmissions from './009_collections_submissions.ts';
import fileBindings from './010_file_bindings.ts';
import canvasHostSessions from './011_canvas_host_sessions.ts';
import authoring from './012_authoring.ts';
import personalTokens from './013_personal_tokens.ts';
import oidcLogins from './014_oidc_logins.ts';
import gallery from './015_gallery.ts';
import drafts from './016_drafts.ts';
import cliLogins from './017_cli_logins.ts';
import nodes from './018_nodes.ts';
import nodeRuns from './019_node_runs.ts';
import guestChangeSignal from './020_guest_change_signal.ts';
import blobClaims from './021_blob_claims.ts';
import userAdminGroups from './022_user_admin_groups.ts';
import versionPreviews from './023_version_previews.ts';
import notificationOutbox from './024_notification_outbox.ts';
import notificationPreferences from './025_notification_preferences.ts';
import insights from './026_insights.ts';
import webhooks from './027_webhooks.ts';
import submissionDigests from './028_submission_digests.ts';
import policyMisses from './029_policy_misses.ts';
import caseFolding from './030_case_folding.ts';
import listUnsubscribe from './031_list_unsubscribe.ts';
import versionWarnings from './032_version_warnings.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Append only: a released migration is never edited, a fix is a new row. */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'foundation', sql: foundation },
  { version: 2, name: 'versions', sql: versions },
  { version: 3, name: 'uploads', sql: uploads },
  { version: 4, name: 'runtime', sql: runtime },
  { version: 5, name: 'ai', sql: ai },
  { version: 6, name: 'connections', sql: connections },
  { version: 7, name: 'guest invite expiry', sql: guestInviteExpiry },
  { version: 8, name: 'service workers', sql: serviceWorkers },
  { version: 9, name: 'collections and submissions', sql: collectionsSubmissions },
  { version: 10, name: 'file groups and attachments', sql: fileBindings },
  { version: 11, name: 'canvas host sessions', sql: canvasHostSessions },
  { version: 12, name: 'authoring', sql: authoring },
  { version: 13, name: 'personal access tokens', sql: personalTokens },
  { version: 14, name: 'oidc logins', sql: oidcLogins },
  { version: 15, name: 'gallery', sql: gallery },
  { version: 16, name: 'drafts', sql: drafts },
  { version: 17, name: 'cli logins', sql: cliLogins },
  { version: 18, name: 'nodes', sql: nodes },
  { version: 19, name: 'node runs', sql: nodeRuns },
  { version: 20, name: 'guest change signal', sql: guestChangeSignal },
  { version: 21, name: 'blob claims', sql: blobClaims },
  { version: 22, name: 'user admin groups', sql: userAdminGroups },
  { version: 23, name: 'version previews', sql: versionPreviews },
  { version: 24, name: 'notification outbox', sql: notificationOutbox },
  { version: 25, name: 'notification preferences', sql: notificationPreferences },
  { version: 26, name: 'insights', sql: insights },
  { version: 27, name: 'webhooks', sql: webhooks },
  { version: 28, name: 'submission digests', sql: submissionDigests },
  { version: 29, name: 'policy misses', sql: policyMisses },
  { version: 30, name: 'case folding', sql: caseFolding },
  { version: 31, name: 'list unsubscribe', sql: listUnsubscribe },
  { version: 32, name: 'version warnings', sql: versionWarnings },
];
