// What each mounted route is, for GET /openapi.json: one entry per route of
// the app's listing (keyed `METHOD path` in router syntax), with the request
// schemas the routes themselves validate with and the refusals the route adds
// to those of its door (see DOORS). test/openapi.test.ts holds this list and
// the mounted routes to each other: a route added without an entry, or an
// entry left after its route went, fails it.
import { Type as T } from '@sinclair/typebox';
import { DisableBody, PatchSettingsBody, PatchUserBody } from '../admin/model.ts';
import { CreateMetadata, UpdateMetadata } from '../authoring/model.ts';
import { BROWSE_LIMITS } from '../canvas-data/browse.ts';
import { CreateInviteBody } from '../canvases/guests/model.ts';
import { CreateProfileBody, PatchProfileBody } from '../connections/model.ts';
import { DraftPathBody, PublishDraftBody } from '../drafts/model.ts';
import { GalleryBody, UseTemplateBody } from '../gallery/routes.ts';
import { BeginUploadBody, FinalizeBody, RollbackBody } from '../deploy/model.ts';
import type { ErrorCode } from '../errors.ts';
import type { Door, RouteDeclaration, Tag } from '../http/declared-route.ts';
import { InsightsAnswer } from '../insights/model.ts';
import { PutWebhooksBody } from '../webhooks/model.ts';
import { ChatBody } from '../runtime/ai/model.ts';
import { IncrementBody, ValueBody as RecordBody } from '../runtime/collections/model.ts';
import { RenameBody } from '../runtime/files/model.ts';
import { KvIncrementBody } from '../runtime/kv/model.ts';
import {
  BeginUploadAnswer,
  CanvasCreated,
  CanvasView,
  DeployResult,
  DeployStatus,
  FileListing,
  KvValue,
  Ok,
  VersionList,
} from './schemas.ts';

/** A route's description while its route does not declare it yet (src/http/declared-route.ts). */
export type RouteDoc = Omit<RouteDeclaration, 'method' | 'path' | 'query'> & { query?: Record<string, string> };

const r = (tag: Tag, door: Door, summary: string, more: Omit<RouteDoc, 'tag' | 'door' | 'summary'> = {}): RouteDoc => ({
  tag,
  door,
  summary,
  ...more,
});
const html = (description: string) => ({ contentType: 'text/html', description });
const bytes = (description: string) => ({ contentType: 'application/octet-stream', description });
const anyJson = T.Unknown();
const BODY: ErrorCode[] = ['INVALID_BODY'];
const COORDINATION: ErrorCode[] = ['PUBLICATION_CHANGED', 'RELEASE_NOT_CURRENT', 'INVALID_RELEASE_ID', 'INVALID_REQUEST'];
const RUNTIME_BODY: ErrorCode[] = ['INVALID_BODY', 'BODY_TOO_LARGE', 'PERMISSION_DENIED'];
const CANVAS_ROLE: ErrorCode[] = ['NOT_FOUND'];
const PREVIEW_QUERY =
  'true: a ready version that does not go live (outcome "preview", previewUrl); the live version and publication token stay';

/** The deploy paths' own refusals: the canvas key's routes and the people's answer the same. */
const ZIP_DEPLOY_ERRORS: ErrorCode[] = [
  'EMPTY_DEPLOY',
  'INVALID_ZIP',
  'ZIP_SLIP_REJECTED',
  'ZIP_BOMB_REJECTED',
  'TOO_MANY_FILES',
  'CANVAS_TOO_LARGE',
  'FILE_TOO_LARGE',
  'QUOTA_EXCEEDED',
  'INSUFFICIENT_STORAGE',
  'STORAGE_UNAVAILABLE',
  ...COORDINATION,
];
const BEGIN_ERRORS: ErrorCode[] = [
  'INVALID_MANIFEST',
  'INVALID_PATH',
  'FILE_TOO_LARGE',
  'CANVAS_TOO_LARGE',
  'TOO_MANY_FILES',
  ...COORDINATION,
];
const STAGE_ERRORS: ErrorCode[] = [
  'UPLOAD_HANDLE_INVALID',
  'UPLOAD_EXPIRED',
  'UPLOAD_UNEXPECTED_BLOB',
  'BLOB_HASH_MISMATCH',
  'FILE_TOO_LARGE',
  'UPLOAD_ALREADY_FINALIZED',
  'INSUFFICIENT_STORAGE',
  'STORAGE_UNAVAILABLE',
];
const FINALIZE_ERRORS: ErrorCode[] = [
  'UPLOAD_HANDLE_INVALID',
  'UPLOAD_EXPIRED',
  'UPLOAD_MISSING_BLOB',
  'UPLOAD_IN_PROGRESS',
  'UPLOAD_ALREADY_FINALIZED',
  'RELEASE_ID_MISMATCH',
  ...COORDINATION,
];

const EXPORT_QUERY = { format: 'json (default), ndjson or csv (RFC 4180 with a header row)' };
const EXPORT_ANSWER = { contentType: 'application/json', description: 'the rows as a JSON array, NDJSON lines or CSV, as an attachment' };
const EXPORT_ERRORS: ErrorCode[] = ['NOT_FOUND', 'INVALID_BODY', 'PERMISSION_DENIED'];
const BROWSE_QUERY = {
  limit: `items per page, 1-${BROWSE_LIMITS.maxPage} (default ${BROWSE_LIMITS.defaultPage})`,
  after: 'the `next` of the previous page (absent: from the start)',
  q: `only items whose key or id or value text (a file's name) holds this, case-insensitively, taken literally (at most ${BROWSE_LIMITS.queryChars} characters)`,
};
const BROWSE_ANSWER = T.Object({
  items: T.Array(T.Unknown(), { description: "the export's rows (people named), in key, id or upload order" }),
  next: T.Union([T.String(), T.Null()], { description: 'the cursor of the next page; null at the end' }),
});
const REMOVED = T.Object({ ok: T.Literal(true), attachmentCleanupFailed: T.Optional(T.Boolean()) });
const exported = (summary: string, errors: ErrorCode[] = []) =>
  r('Management', 'session', summary, { query: EXPORT_QUERY, answer: EXPORT_ANSWER, errors: [...EXPORT_ERRORS, ...errors] });
const browse = (what: string, errors: ErrorCode[] = []) =>
  r('Management', 'session', `Browse ${what}: a page, with a search (the export's rows and rules)`, {
    query: BROWSE_QUERY,
    answer: BROWSE_ANSWER,
    errors: [...EXPORT_ERRORS, ...errors],
  });
const removal = (what: string, errors: ErrorCode[] = []) =>
  r('Management', 'session', `Delete ${what} as the runtime API would let the caller (audited)`, {
    answer: REMOVED,
    errors: [...EXPORT_ERRORS, ...errors],
  });

export const CATALOG: Record<string, RouteDoc> = {
  // Service
  'GET /metrics': r('Service', 'metrics', 'Prometheus metrics (admin session or EASEL_METRICS_TOKEN)', {
    answer: { contentType: 'text/plain; version=0.0.4', description: 'Prometheus text exposition' },
  }),

  // Sign-in
  'GET /auth/guest': r('Sign-in', 'public', 'Open a guest invite link (a guest session for one canvas)', {
    query: { token: 'the invite token' },
    answer: html('redirect to the canvas'),
    pages: { 404: 'the invite link is unknown, revoked or expired' },
  }),

  // Management
  'GET /api/canvases/:id/capabilities': r('Management', 'session', 'Each capability switch and its effective state, with why one is off', {
    answer: anyJson,
    errors: CANVAS_ROLE,
  }),
  'GET /api/canvases/:id/usage': r('Management', 'session', "The canvas's shared KV keys and file bytes against the quotas", {
    answer: T.Object({
      kv: T.Object({ sharedKeys: T.Integer(), sharedKeysMax: T.Integer(), userKeysMaxPerPerson: T.Integer() }),
      files: T.Object({ bytes: T.Integer(), bytesMax: T.Integer() }),
    }),
    errors: CANVAS_ROLE,
  }),
  'GET /api/canvases/:id/gallery': r('Management', 'session', 'Whether the canvas is listed in the gallery and offered as a template', {
    answer: T.Object({ listed: T.Boolean(), templatable: T.Boolean() }),
    errors: CANVAS_ROLE,
  }),
  'PUT /api/canvases/:id/gallery': r('Management', 'session', 'List the canvas in the gallery (published only), offer it as a template', {
    body: GalleryBody,
    answer: T.Object({ listed: T.Boolean(), templatable: T.Boolean() }),
    errors: [...CANVAS_ROLE, ...BODY, 'NOT_PUBLISHED'],
  }),
  'GET /api/gallery': r('Management', 'session', 'Listed canvases you may open, searched by title', {
    query: { q: 'search text' },
    answer: anyJson,
  }),
  'POST /api/gallery/:id/use': r(
    'Management',
    'session',
    "A new canvas of yours from a template's live version (its deploy key shown once)",
    {
      body: UseTemplateBody,
      answer: CanvasCreated,
      errors: ['NOT_FOUND', 'PERMISSION_DENIED', 'QUOTA_EXCEEDED', ...BODY],
    },
  ),
  'POST /api/canvases/:id/revoke': r('Management', 'session', 'Revoke a canvas a page published (authoring)', {
    answer: CanvasView,
    errors: CANVAS_ROLE,
  }),
  'POST /api/canvases/:id/guest-invites': r('Management', 'session', 'Create a guest invite link', {
    body: CreateInviteBody,
    answer: T.Object(
      {
        inviteId: T.String(),
        url: T.String(),
        expiresAt: T.Integer(),
        emailed: T.Optional(
          T.Boolean({ description: 'only when `email` was given: the link is in the outbox (false: the instance sends no email)' }),
        ),
      },
      { additionalProperties: true },
    ),
    errors: [...CANVAS_ROLE, ...BODY],
  }),
  'GET /api/canvases/:id/guest-invites': r('Management', 'session', 'Guest invites of a canvas', { answer: anyJson, errors: CANVAS_ROLE }),
  'DELETE /api/canvases/:id/guest-invites/:inviteId': r('Management', 'session', 'Revoke a guest invite', {
    answer: Ok,
    errors: CANVAS_ROLE,
  }),
  'GET /api/canvases/:id/data': r(
    'Management',
    'session',
    'What the canvas holds, in counts and bytes (KV, collections, submissions, files)',
    {
      answer: anyJson,
      errors: CANVAS_ROLE,
    },
  ),
  'GET /api/canvases/:id/webhooks': r(
    'Management',
    'session',
    "The canvas's webhooks: URL, events, active, last delivery (never their signing secrets)",
    { answer: anyJson, errors: CANVAS_ROLE },
  ),
  'PUT /api/canvases/:id/webhooks': r(
    'Management',
    'session',
    "Replace the canvas's webhooks (at most 10; keep one by sending its id): a new hook's signing secret is in this answer only",
    { body: PutWebhooksBody, answer: anyJson, errors: ['NOT_FOUND', 'INVALID_BODY'] },
  ),
  'GET /api/canvases/:id/webhooks/:hookId/deliveries': r(
    'Management',
    'session',
    "A webhook's last 50 deliveries: status, HTTP status, duration, attempts, time",
    { answer: anyJson, errors: CANVAS_ROLE },
  ),
  'GET /api/canvases/:id/data/kv': exported('Export the shared KV keys (never the per-viewer scope)'),
  'GET /api/canvases/:id/data/collections/:name': exported("Export a collection's records the caller may read", [
    'COLLECTION_NOT_CONFIGURED',
  ]),
  'GET /api/canvases/:id/data/submissions/:collection': exported('Export a submissions collection (owners and editors)'),
  'GET /api/canvases/:id/data/files': exported('Export the list of runtime files the caller may read'),
  'GET /api/canvases/:id/data/kv/items': browse('the shared KV keys'),
  'DELETE /api/canvases/:id/data/kv/items/:key': removal('a shared key (owners and editors; idempotent)', ['KEY_TOO_LARGE']),
  'GET /api/canvases/:id/data/collections/:name/items': browse("a collection's records the caller may read", ['COLLECTION_NOT_CONFIGURED']),
  'DELETE /api/canvases/:id/data/collections/:name/items/:record': removal("a collection record (the policy's delete rule)", [
    'COLLECTION_NOT_CONFIGURED',
  ]),
  'GET /api/canvases/:id/data/submissions/:collection/items': browse('a submissions collection (owners and editors)'),
  'DELETE /api/canvases/:id/data/submissions/:collection/items/:userId': removal("someone's submission (owners and editors; idempotent)"),
  'GET /api/canvases/:id/data/files/items': browse('the runtime files the caller may read'),
  'DELETE /api/canvases/:id/data/files/items/:file': removal('a runtime file'),
  'GET /api/canvases/:id/data/files.zip': r('Management', 'session', 'The runtime files the caller may read, in one ZIP', {
    answer: { contentType: 'application/zip', description: 'a ZIP of stored entries, one per file, streamed' },
    errors: ['NOT_FOUND', 'PERMISSION_DENIED'],
  }),
  'GET /api/canvases/:id/insights': r(
    'Management',
    'session',
    'Views, signed-in visitors, top paths and API calls per UTC day (counts only)',
    {
      query: { days: 'how many UTC days up to today, 1–400 (default 30)' },
      answer: InsightsAnswer,
      errors: [...CANVAS_ROLE, 'INVALID_BODY'],
    },
  ),
  'GET /api/canvases/:id/versions': r('Management', 'session', 'Versions, newest first (as a person: no deploy key needed)', {
    answer: VersionList,
    errors: CANVAS_ROLE,
  }),
  'GET /api/canvases/:id/files': r('Management', 'session', 'Files of the live version, or one file with ?path=', {
    query: { path: 'one file of the live version (its bytes)' },
    answer: FileListing,
    errors: [...CANVAS_ROLE, 'NOT_PUBLISHED'],
  }),
  'POST /api/canvases/:id/rollback': r('Management', 'session', 'Make a kept version live again', {
    body: RollbackBody,
    answer: T.Object({ url: T.String(), version: T.Integer() }, { additionalProperties: true }),
    errors: [...CANVAS_ROLE, ...BODY, 'VERSION_UNAVAILABLE'],
  }),
  'PUT /api/canvases/:id/deploy': r('Management', 'session', 'Publish a ZIP as a person (the raw bytes; audited as you)', {
    body: { contentType: 'application/zip', description: 'a ZIP of the site' },
    query: { releaseId: 'release identity', expectedPublicationToken: 'publish only if still current', preview: PREVIEW_QUERY },
    answer: DeployResult,
    errors: [...CANVAS_ROLE, ...ZIP_DEPLOY_ERRORS],
  }),
  'POST /api/canvases/:id/uploads': r('Management', 'session', 'Staged upload as a person, step 1', {
    body: BeginUploadBody,
    answer: BeginUploadAnswer,
    errors: [...CANVAS_ROLE, ...BEGIN_ERRORS],
  }),
  'PUT /api/canvases/:id/uploads/:uploadId/blobs/:hash': r('Management', 'session', 'Staged upload as a person, step 2: one blob', {
    body: bytes('the file bytes whose sha256 is :hash'),
    answer: { status: 204, contentType: 'none', description: 'stored' },
    errors: [...CANVAS_ROLE, ...STAGE_ERRORS],
  }),
  'POST /api/canvases/:id/uploads/:uploadId/finalize': r('Management', 'session', 'Staged upload as a person, step 3: publish', {
    body: FinalizeBody,
    answer: DeployResult,
    errors: [...CANVAS_ROLE, ...FINALIZE_ERRORS],
  }),
  'POST /api/canvases/:id/unpublish': r('Management', 'session', 'Take the canvas offline (history kept)', {
    answer: anyJson,
    errors: [...CANVAS_ROLE, 'CANNOT_UNPUBLISH'],
  }),

  // Browser drafts (the dashboard's editor)
  'GET /api/canvases/:id/draft': r('Management', 'session', 'Your draft of the canvas (started from the live version on first open)', {
    answer: anyJson,
    errors: CANVAS_ROLE,
  }),
  'DELETE /api/canvases/:id/draft': r('Management', 'session', 'Discard your draft', {
    answer: { status: 204, contentType: 'none', description: 'discarded' },
    errors: CANVAS_ROLE,
  }),
  'GET /api/canvases/:id/draft/file': r('Management', 'session', "One file's bytes from your draft, its base version or the live version", {
    query: { path: 'the file', from: 'draft (default), base or live' },
    answer: bytes('the file'),
    errors: [...CANVAS_ROLE, ...BODY, 'INVALID_PATH', 'ZIP_SLIP_REJECTED'],
  }),
  'PUT /api/canvases/:id/draft/file': r('Management', 'session', 'Write one file of your draft (the raw bytes)', {
    query: { path: 'the file' },
    body: bytes('the new content'),
    answer: anyJson,
    errors: [
      ...CANVAS_ROLE,
      ...BODY,
      'INVALID_PATH',
      'ZIP_SLIP_REJECTED',
      'FILE_TOO_LARGE',
      'TOO_MANY_FILES',
      'CANVAS_TOO_LARGE',
      'INSUFFICIENT_STORAGE',
      'STORAGE_UNAVAILABLE',
    ],
  }),
  'DELETE /api/canvases/:id/draft/file': r('Management', 'session', 'Delete one file from your draft', {
    query: { path: 'the file' },
    answer: anyJson,
    errors: [...CANVAS_ROLE, ...BODY, 'INVALID_PATH', 'ZIP_SLIP_REJECTED'],
  }),
  'POST /api/canvases/:id/draft/revert': r('Management', 'session', "Drop your draft's edit of one file", {
    body: DraftPathBody,
    answer: anyJson,
    errors: [...CANVAS_ROLE, ...BODY, 'INVALID_PATH', 'ZIP_SLIP_REJECTED'],
  }),
  'POST /api/canvases/:id/draft/rebase': r('Management', 'session', 'Move a stale draft onto the live version, keeping your edits', {
    answer: anyJson,
    errors: [...CANVAS_ROLE, 'NOT_PUBLISHED'],
  }),
  'POST /api/canvases/:id/draft/publish': r('Management', 'session', 'Publish your draft as a new live version (source editor)', {
    body: PublishDraftBody,
    answer: DeployResult,
    errors: [...CANVAS_ROLE, ...BODY, 'DRAFT_STALE', 'EMPTY_DEPLOY', 'PUBLICATION_CHANGED', 'QUOTA_EXCEEDED', 'RATE_LIMITED'],
  }),

  // Admin
  'GET /api/admin/users': r('Admin', 'admin', 'Every user', { answer: anyJson }),
  'GET /api/admin/users/:id': r('Admin', 'admin', 'One user', { answer: anyJson }),
  'PATCH /api/admin/users/:id': r('Admin', 'admin', 'Deactivate, reactivate or limit a user', {
    body: PatchUserBody,
    answer: anyJson,
    errors: BODY,
  }),
  'POST /api/admin/canvases/:id/disable': r('Admin', 'admin', 'Disable a canvas', { body: DisableBody, answer: CanvasView, errors: BODY }),
  'POST /api/admin/canvases/:id/enable': r('Admin', 'admin', 'Enable a disabled canvas', { answer: CanvasView }),
  'GET /api/admin/canvases': r('Admin', 'admin', 'Every canvas, newest first, searched by title, slug or owner email', {
    query: { q: 'search text', limit: '1-200 (default 50)' },
    answer: anyJson,
  }),
  'GET /api/admin/audit': r('Admin', 'admin', 'The audit log, newest first, filtered', {
    query: {
      action: 'action prefix, e.g. canvas.',
      canvasId: 'one canvas',
      actorId: 'one person',
      before: 'entries older than this id (paging)',
      limit: '1-200',
    },
    answer: anyJson,
  }),
  'GET /api/admin/notifications': r('Admin', 'admin', 'Recent notification emails: sent, waiting to be tried again, failed', {
    query: { state: 'pending, sent or failed (default: all)', limit: '1-200 (default 50)' },
    answer: anyJson,
  }),
  'GET /api/admin/usage': r('Admin', 'admin', 'Database, blob store and disk usage', { answer: anyJson }),
  'GET /api/admin/settings': r('Admin', 'admin', 'Instance settings', { answer: anyJson }),
  'PATCH /api/admin/settings': r('Admin', 'admin', 'Change instance settings', {
    body: PatchSettingsBody,
    answer: anyJson,
    errors: [...BODY, 'SECRET_KEY_MISSING'],
  }),
  'GET /api/admin/connections': r('Admin', 'admin', 'Connection profiles (header names only)', { answer: anyJson }),
  'POST /api/admin/connections': r('Admin', 'admin', 'Create a Connection profile', {
    body: CreateProfileBody,
    answer: anyJson,
    errors: [...BODY, 'CONNECTION_EXISTS', 'SECRET_KEY_MISSING'],
  }),
  'GET /api/admin/connections/:name': r('Admin', 'admin', 'One Connection profile', { answer: anyJson }),
  'PATCH /api/admin/connections/:name': r('Admin', 'admin', 'Change a Connection profile', {
    body: PatchProfileBody,
    answer: anyJson,
    errors: [...BODY, 'SECRET_KEY_MISSING'],
  }),
  'DELETE /api/admin/connections/:name': r('Admin', 'admin', 'Delete a Connection profile', { answer: Ok }),
  'GET /api/admin/canvases/:id/connections': r('Admin', 'admin', 'Connections granted to a canvas', { answer: anyJson }),
  'PUT /api/admin/canvases/:id/connections/:name': r('Admin', 'admin', 'Grant a Connection to a canvas', { answer: anyJson }),
  'DELETE /api/admin/canvases/:id/connections/:name': r('Admin', 'admin', 'Withdraw a Connection from a canvas', { answer: Ok }),

  // Deploy API (the canvas key)
  'PUT /v1/canvases/:id/deploy': r('Deploy', 'deployKey', 'Publish a ZIP archive (the raw bytes: curl --data-binary @site.zip)', {
    body: { contentType: 'application/zip', description: 'a ZIP of the site, index.html at its root (up to 110 MB)' },
    query: {
      releaseId: 'release identity (a rerun of the live release answers already_current)',
      expectedPublicationToken: 'publish only if still current',
      preview: PREVIEW_QUERY,
    },
    answer: DeployResult,
    errors: ZIP_DEPLOY_ERRORS,
  }),
  'GET /v1/canvases/:id': r('Deploy', 'deployKey', "The canvas's publication state", { answer: DeployStatus }),
  'GET /v1/canvases/:id/versions': r('Deploy', 'deployKey', 'Versions, newest first', { answer: VersionList }),
  'GET /v1/canvases/:id/files': r('Deploy', 'deployKey', 'Files of the live version, or one file with ?path=', {
    query: { path: 'one file of the live version (its bytes)' },
    answer: FileListing,
    errors: ['NOT_PUBLISHED', 'NOT_FOUND'],
  }),
  'POST /v1/canvases/:id/rollback': r('Deploy', 'deployKey', 'Make a kept version live again', {
    body: RollbackBody,
    answer: T.Object({ url: T.String(), version: T.Integer() }, { additionalProperties: true }),
    errors: ['invalid_body', 'VERSION_UNAVAILABLE'],
  }),
  'POST /v1/canvases/:id/unpublish': r('Deploy', 'deployKey', 'Take the canvas offline', { answer: anyJson, errors: ['CANNOT_UNPUBLISH'] }),
  'POST /v1/canvases/:id/uploads': r('Deploy', 'deployKey', 'Staged upload, step 1: the manifest; answers the hashes the server lacks', {
    body: BeginUploadBody,
    answer: BeginUploadAnswer,
    errors: BEGIN_ERRORS,
  }),
  'PUT /v1/canvases/:id/uploads/:uploadId/blobs/:hash': r('Deploy', 'deployKey', 'Staged upload, step 2: one missing blob (raw bytes)', {
    body: bytes('the file bytes whose sha256 is :hash'),
    answer: { status: 204, contentType: 'none', description: 'stored' },
    errors: STAGE_ERRORS,
  }),
  'POST /v1/canvases/:id/uploads/:uploadId/finalize': r('Deploy', 'deployKey', 'Staged upload, step 3: publish', {
    body: FinalizeBody,
    answer: DeployResult,
    errors: FINALIZE_ERRORS,
  }),

  // Agents
  'POST /mcp': r('Agents', 'session', 'Model Context Protocol (streamable HTTP, stateless): the canvas tools', {
    body: anyJson,
    answer: anyJson,
  }),
  'GET /mcp': r('Agents', 'session', 'MCP: no server-sent stream (405)', { answer: anyJson }),
  'DELETE /mcp': r('Agents', 'session', 'MCP: no sessions to end (405)', { answer: anyJson }),

  // SDK and dashboard

  // Runtime API (pages of the canvas, with the viewer's session)
  'OPTIONS /v1/c/:slug': r('Runtime', 'public', 'CORS preflight', {
    answer: { status: 204, contentType: 'none', description: 'CORS headers' },
  }),
  'OPTIONS /v1/c/:slug/*': r('Runtime', 'public', 'CORS preflight', {
    answer: { status: 204, contentType: 'none', description: 'CORS headers' },
  }),
  'GET /v1/c/:slug/me': r('Runtime', 'runtime', 'The viewer, their role and the canvas capabilities', { answer: anyJson }),
  'GET /v1/c/:slug/kv/user': r('Runtime', 'runtime', "List the viewer's own keys", {
    query: { prefix: 'key prefix', cursor: 'next page', limit: '1–1000' },
    answer: anyJson,
  }),
  'GET /v1/c/:slug/kv/user/:key': r('Runtime', 'runtime', "Read one of the viewer's keys", {
    answer: KvValue,
    errors: ['NOT_FOUND', 'KEY_TOO_LARGE'],
  }),
  'PUT /v1/c/:slug/kv/user/:key': r('Runtime', 'runtime', "Write one of the viewer's keys (any JSON but null)", {
    body: anyJson,
    answer: Ok,
    errors: [...RUNTIME_BODY, 'KEY_TOO_LARGE', 'VALUE_TOO_LARGE', 'KEY_LIMIT'],
  }),
  'DELETE /v1/c/:slug/kv/user/:key': r('Runtime', 'runtime', "Delete one of the viewer's keys", { answer: Ok }),
  'POST /v1/c/:slug/kv/user/:key/increment': r('Runtime', 'runtime', "Add to a number in the viewer's scope", {
    body: KvIncrementBody,
    answer: KvValue,
    errors: [...RUNTIME_BODY, 'NOT_NUMERIC', 'KEY_LIMIT'],
  }),
  'GET /v1/c/:slug/kv': r('Runtime', 'runtime', 'List shared keys', {
    query: { prefix: 'key prefix', cursor: 'next page', limit: '1–1000' },
    answer: anyJson,
  }),
  'GET /v1/c/:slug/kv/:key': r('Runtime', 'runtime', 'Read a shared key', { answer: KvValue, errors: ['NOT_FOUND', 'KEY_TOO_LARGE'] }),
  'PUT /v1/c/:slug/kv/:key': r('Runtime', 'runtime', 'Write a shared key (editors)', {
    body: anyJson,
    answer: Ok,
    errors: [...RUNTIME_BODY, 'KEY_TOO_LARGE', 'VALUE_TOO_LARGE', 'KEY_LIMIT'],
  }),
  'DELETE /v1/c/:slug/kv/:key': r('Runtime', 'runtime', 'Delete a shared key (editors)', { answer: Ok, errors: ['PERMISSION_DENIED'] }),
  'POST /v1/c/:slug/kv/:key/increment': r('Runtime', 'runtime', 'Add to a shared number', {
    body: KvIncrementBody,
    answer: KvValue,
    errors: [...RUNTIME_BODY, 'NOT_NUMERIC', 'KEY_LIMIT'],
  }),
  'POST /v1/c/:slug/files': r('Runtime', 'runtime', 'Upload a file (multipart/form-data, field "file")', {
    body: { contentType: 'multipart/form-data', description: 'one part named file' },
    answer: anyJson,
    errors: [...RUNTIME_BODY, 'QUOTA_EXCEEDED', 'INSUFFICIENT_STORAGE', 'STORAGE_UNAVAILABLE'],
  }),
  'GET /v1/c/:slug/files': r('Runtime', 'runtime', 'List files', { query: { cursor: 'next page', limit: 'page size' }, answer: anyJson }),
  'GET /v1/c/:slug/files/:id/content': r('Runtime', 'runtime', "A file's bytes (Range and ETag)", {
    answer: bytes('the file'),
    errors: ['NOT_FOUND'],
  }),
  'PATCH /v1/c/:slug/files/:id': r('Runtime', 'runtime', 'Rename a file', {
    body: RenameBody,
    answer: anyJson,
    errors: [...RUNTIME_BODY, 'NOT_FOUND'],
  }),
  'DELETE /v1/c/:slug/files/:id': r('Runtime', 'runtime', 'Delete a file', { answer: Ok, errors: ['PERMISSION_DENIED', 'NOT_FOUND'] }),
  'POST /v1/c/:slug/ai/chat': r('Runtime', 'runtime', 'Stream an AI answer (server-sent events: delta, done, error)', {
    body: ChatBody,
    answer: { contentType: 'text/event-stream', description: 'data: {"type":"delta","text":…} … data: {"type":"done","usage":…,"cost":…}' },
    errors: [...RUNTIME_BODY, 'MODEL_NOT_ALLOWED', 'GUEST_AI_DISABLED', 'GUEST_AI_CAP', 'QUOTA_EXCEEDED', 'AI_UPSTREAM_ERROR'],
  }),
  'ALL /v1/c/:slug/connections/:profile': r('Runtime', 'runtime', 'Call a Connection (the approved origin, with its protected headers)', {
    body: bytes('passed to the upstream'),
    answer: bytes("the upstream's answer, marked X-Easel-Connection-Response: upstream"),
    errors: [
      'PERMISSION_DENIED',
      'CONNECTION_PATH_INVALID',
      'CONNECTION_URL_TOO_LONG',
      'CONNECTION_HEADERS_TOO_LARGE',
      'BODY_TOO_LARGE',
      'CONNECTION_TIMEOUT',
      'CONNECTION_UPSTREAM_UNREACHABLE',
    ],
  }),
  'ALL /v1/c/:slug/connections/:profile/*': r('Runtime', 'runtime', 'Call a Connection with a path under its origin', {
    body: bytes('passed to the upstream'),
    answer: bytes("the upstream's answer"),
    errors: [
      'PERMISSION_DENIED',
      'CONNECTION_PATH_INVALID',
      'CONNECTION_URL_TOO_LONG',
      'CONNECTION_HEADERS_TOO_LARGE',
      'BODY_TOO_LARGE',
      'CONNECTION_TIMEOUT',
      'CONNECTION_UPSTREAM_UNREACHABLE',
    ],
  }),
  'PUT /v1/c/:slug/submissions/:collection/mine': r('Runtime', 'runtime', "Submit (or replace) the viewer's entry", {
    body: anyJson,
    answer: anyJson,
    errors: [...RUNTIME_BODY, 'QUOTA_EXCEEDED'],
  }),
  'GET /v1/c/:slug/submissions/:collection/mine': r('Runtime', 'runtime', "The viewer's entry", { answer: anyJson, errors: ['NOT_FOUND'] }),
  'DELETE /v1/c/:slug/submissions/:collection/mine': r('Runtime', 'runtime', "Withdraw the viewer's entry", { answer: Ok }),
  'GET /v1/c/:slug/submissions/:collection': r('Runtime', 'runtime', 'Every entry (editors)', {
    query: { cursor: 'next page', limit: 'page size' },
    answer: anyJson,
    errors: ['PERMISSION_DENIED'],
  }),
  'DELETE /v1/c/:slug/submissions/:collection/:userId': r('Runtime', 'runtime', "Remove someone's entry (editors)", {
    answer: Ok,
    errors: ['PERMISSION_DENIED'],
  }),
  'DELETE /v1/c/:slug/submissions/:collection': r('Runtime', 'runtime', 'Clear every entry (editors)', {
    answer: Ok,
    errors: ['PERMISSION_DENIED'],
  }),
  'POST /v1/c/:slug/collections/:name': r('Runtime', 'runtime', 'Create a record', {
    body: RecordBody,
    answer: anyJson,
    errors: [...RUNTIME_BODY, 'COLLECTION_NOT_CONFIGURED', 'QUOTA_EXCEEDED'],
  }),
  'GET /v1/c/:slug/collections/:name': r('Runtime', 'runtime', 'List records the viewer may read', {
    query: { cursor: 'next page', limit: 'page size' },
    answer: anyJson,
    errors: ['PERMISSION_DENIED', 'COLLECTION_NOT_CONFIGURED'],
  }),
  'DELETE /v1/c/:slug/collections/:name': r('Runtime', 'runtime', 'Delete every record (per the policy)', {
    answer: anyJson,
    errors: ['PERMISSION_DENIED', 'COLLECTION_NOT_CONFIGURED'],
  }),
  'GET /v1/c/:slug/collections/:name/permissions': r('Runtime', 'runtime', "The viewer's rights on the collection", {
    answer: anyJson,
    errors: ['COLLECTION_NOT_CONFIGURED'],
  }),
  'GET /v1/c/:slug/collections/:name/count': r('Runtime', 'runtime', 'How many records (aggregateCount)', {
    answer: anyJson,
    errors: ['PERMISSION_DENIED', 'COLLECTION_NOT_CONFIGURED'],
  }),
  'GET /v1/c/:slug/collections/:name/:id': r('Runtime', 'runtime', 'Read a record', {
    answer: anyJson,
    errors: ['PERMISSION_DENIED', 'NOT_FOUND'],
  }),
  'PUT /v1/c/:slug/collections/:name/:id': r('Runtime', 'runtime', 'Replace a record', {
    body: RecordBody,
    answer: anyJson,
    errors: [...RUNTIME_BODY, 'NOT_FOUND'],
  }),
  'DELETE /v1/c/:slug/collections/:name/:id': r('Runtime', 'runtime', 'Delete a record', {
    answer: Ok,
    errors: ['PERMISSION_DENIED', 'NOT_FOUND'],
  }),
  'POST /v1/c/:slug/collections/:name/:id/increment': r('Runtime', 'runtime', 'Add to a number field of a record', {
    body: IncrementBody,
    answer: anyJson,
    errors: [...RUNTIME_BODY, 'NOT_NUMERIC', 'NOT_FOUND'],
  }),
  'POST /v1/c/:slug/authoring': r('Runtime', 'runtime', 'Publish a new canvas from this page (multipart: metadata, then the bundle)', {
    body: {
      contentType: 'multipart/form-data',
      description: `metadata (JSON: ${Object.keys(CreateMetadata.properties).join(', ')}) and bundle (a ZIP)`,
    },
    answer: anyJson,
    errors: [
      ...RUNTIME_BODY,
      'QUOTA_EXCEEDED',
      'PUBLIC_LINKS_DISABLED',
      'PUBLIC_NOT_ALLOWED',
      'PUBLIC_LINK_OWNER_GATED',
      'SLUG_TAKEN',
      'PUBLISH_FAILED',
      'ORG_REQUIRED',
      'NOT_AUTHENTICATED',
    ],
  }),
  'GET /v1/c/:slug/authoring': r('Runtime', 'runtime', 'Canvases this page published for the viewer', { answer: anyJson }),
  'PUT /v1/c/:slug/authoring/:id': r('Runtime', 'runtime', 'Update a canvas this page published', {
    body: {
      contentType: 'multipart/form-data',
      description: `metadata (JSON: ${Object.keys(UpdateMetadata.properties).join(', ')}) and an optional bundle`,
    },
    answer: anyJson,
    errors: [...RUNTIME_BODY, 'SHARE_REVOKED', 'SHARE_CONFLICT', 'UPDATE_PARTIAL', 'NOT_FOUND'],
  }),
  'DELETE /v1/c/:slug/authoring/:id': r('Runtime', 'runtime', 'Delete a canvas this page published', { answer: Ok, errors: ['NOT_FOUND'] }),
  'ALL /v1/c/:slug': r('Runtime', 'runtime', 'No such runtime route (after the pipeline)', { answer: anyJson, errors: ['NOT_FOUND'] }),
  'ALL /v1/c/:slug/*': r('Runtime', 'runtime', 'No such runtime route (after the pipeline)', { answer: anyJson, errors: ['NOT_FOUND'] }),
};
