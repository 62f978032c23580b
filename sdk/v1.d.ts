// Types of the Easel browser SDK, served as /sdk/v1.d.ts. The script
// /sdk/v1.js defines the global `easel`; save this file next to your code and
// reference it (`/// <reference path="./v1.d.ts" />`) or import its types.
//
// Generated from sdk/public-types.ts by `bun run sdk:types`: do not edit.

/** Every SDK failure. `status` is the HTTP status, 0 when no answer arrived (NETWORK_ERROR). */
export declare class EaselError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, status: number, message?: string);
}
/** QUOTA_EXCEEDED, GUEST_AI_CAP and BODY_TOO_LARGE. The HTTP `scope` is not carried. */
export declare class QuotaExceededError extends EaselError {
  constructor(code: string, status: number, message?: string);
}
interface CapabilityDetails {
  capability?: string | null;
  reason?: string | null;
  hint?: string | null;
}
/** CAPABILITY_DISABLED: which capability, why (`backend_off`, `feature_off`, `operator_disabled`), and what would turn it on. */
export declare class CapabilityDisabledError extends EaselError {
  readonly capability: string | null;
  readonly reason: string | null;
  readonly hint: string | null;
  constructor(code: string, status: number, message?: string, details?: CapabilityDetails);
}
/** PERMISSION_DENIED: the caller's role may not do this. */
export declare class PermissionDeniedError extends EaselError {
  constructor(code: string, status: number, message?: string);
}
/**
 * UNAUTHORIZED: the visitor is not signed in (any more). `signInUrl` is where
 * to sign in and come back to this page; `easel.signIn()` goes there.
 */
export declare class UnauthorizedError extends EaselError {
  readonly signInUrl: string | null;
  constructor(code: string, status: number, message?: string);
}
export type CanvasRole = 'owner' | 'editor' | 'viewer';
/** Hints for the page's UI; the server rechecks every operation. */
export interface IdentityPermissions {
  canWriteSharedKv: boolean;
  canUploadSharedFiles: boolean;
  canUploadSubmissionFiles: boolean;
  canUseAi: boolean;
  canCreateCanvas: boolean;
}
/** `GET /me`: who the server says the viewer is on this canvas. */
export interface Identity {
  /** A user id, or `guest:<inviteId>` for a legacy guest. */
  id: string;
  email: string | null;
  name: string;
  avatarUrl: string | null;
  kind: 'member' | 'guest';
  canvasRole: CanvasRole;
  /** Hints for the page's UI; the server rechecks every operation. */
  permissions: IdentityPermissions;
  /** Names of the configured collections, file groups, channels and granted Connections. */
  resources: {
    collections: string[];
    fileGroups: string[];
    channels: string[];
    connections: string[];
  };
}
export interface KvEntry {
  key: string;
  value: unknown;
}
/** `GET /kv` and `GET /kv/user/`. */
export interface KvPage {
  entries: KvEntry[];
  /** Pass it back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}
export type FileScope = 'shared' | 'submission';
/** A file record (`GET /files`, `PATCH /files/{id}`). */
export interface FileRecord {
  id: string;
  name: string;
  size: number;
  mime: string;
  createdAt: number;
  scope: FileScope;
  uploadedBy: string;
  /** A file of a file group: the group's policy governs it. */
  group?: string;
  /** An attachment of a collection record: the record's rights govern it. */
  collection?: string;
  recordId?: string;
}
/** `POST /files`. */
export interface UploadResult {
  id: string;
  name: string;
  size: number;
  /** The content URL (the server answers it root-relative; the SDK makes it absolute on the API host). */
  url: string;
}
export interface AiMessage {
  role: 'user' | 'assistant';
  content: string;
}
/** Token counts of one call; `inputTokens` is the total input, both cache counts included. */
export interface AiUsage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}
/** `POST /ai/chat`. */
export interface AiChatResult {
  text: string;
  usage: AiUsage;
  /** USD, computed by the server. */
  cost: number;
}
export interface PresenceUser {
  id: string;
  name: string;
}
export interface Sender extends PresenceUser {
  canvasRole: CanvasRole;
}
/** A realtime `message` frame, as handed to subscribers. */
export interface RealtimeMessage {
  channel: string;
  event: string;
  data: unknown;
  /** Resolved by the server, with the sender's live role. */
  from: Sender;
}
interface CollectionRecord {
  id: string;
  authorId: string;
  value: unknown;
  updatedAt: number;
}
interface CollectionPage {
  entries: CollectionRecord[];
  /** Pass it back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}
interface ScopedRight {
  own: boolean;
  any: boolean;
}
interface CollectionPermissions {
  read: ScopedRight;
  create: ScopedRight;
  update: ScopedRight;
  delete: ScopedRight;
  increment: ScopedRight;
}
interface SubmissionRecord {
  userId: string;
  value: unknown;
  updatedAt: number;
}
interface SubmissionPage {
  entries: SubmissionRecord[];
  nextCursor: string | null;
}
/** A canvas a page published through authoring (`easel.canvases`). */
export interface AuthoredCanvas {
  id: string;
  url: string;
  title: string;
  tags: string[];
  /** The share's rung as asked: `private`, `whole_org`, `public_link` or `password`. */
  access: 'private' | 'whole_org' | 'public_link' | 'password';
  accessMode: 'restricted' | 'whole_org' | 'public_link';
  /** The lifecycle: the first that applies of disabled, archived, unpublished (revoked), draft, expired, published. */
  publicationStatus: 'disabled' | 'archived' | 'unpublished' | 'draft' | 'expired' | 'published';
  hasPassword: boolean;
  /** Deprecated and frozen: read `publicationStatus`. */
  status: 'revoked' | 'expired' | 'private' | 'live';
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  galleryListed: boolean;
  galleryTemplatable: boolean;
  discoverability: 'none';
  /** The user who published it. */
  createdBy: string;
  viewerRole: 'owner' | 'editor' | 'admin';
  /** People on its list: how many, and the first few names. */
  audienceSummary: {
    count: number;
    names: string[];
  };
  /** The id of the live version, or null; a new one on every bundle. */
  version: string | null;
  bundleUpdatedAt: number;
  /** `metadata.sourceApp` and `metadata.sourceKind` when they are strings. */
  sourceApp: string | null;
  sourceKind: string | null;
  metadata: Record<string, unknown>;
}
export interface KvListOptions {
  prefix?: string;
  cursor?: string | null;
  /** 1 to 1000 (default 100). */
  limit?: number;
}
export interface KvScope {
  /** The stored value (a stored null is null); rejects with NOT_FOUND when the key is absent. */
  get(key: string): Promise<unknown>;
  /** Any JSON value except null. Shared keys: owners and editors only. */
  set(
    key: string,
    value: unknown,
  ): Promise<{
    ok: true;
  }>;
  /** Idempotent. */
  delete(key: string): Promise<{
    ok: true;
  }>;
  list(options?: KvListOptions): Promise<KvPage>;
  /** Adds `by` (default 1; a missing key starts at 0) and resolves to the new number. */
  increment(key: string, by?: number): Promise<number>;
}
/** The shared scope; `user` is the viewer's own scope, which nobody else reads. */
export type Kv = KvScope & {
  readonly user: KvScope;
};
/** Where the file belongs: `scope` (`shared`, the default, or `submission`), or a file `group`, or a `collection` record. */
export interface UploadOptions {
  scope?: 'shared' | 'submission';
  group?: string;
  collection?: string;
  recordId?: string;
}
export interface Files {
  upload(file: Blob, options?: UploadOptions): Promise<UploadResult>;
  /** Shared files, plus the viewer's own submission files. */
  list(): Promise<FileRecord[]>;
  rename(id: string, name: string): Promise<FileRecord>;
  delete(id: string): Promise<{
    ok: true;
  }>;
  /** Synchronous: the absolute content URL (usable as an <img src> or a link). */
  url(id: string): string;
}
/** The only options there are: no temperature, tools, images, stop sequences or abort. */
export interface AiOptions {
  model: string;
  system?: string;
  maxTokens?: number;
}
export interface AiApi {
  chat(messages: AiMessage[], options: AiOptions): Promise<AiChatResult>;
  /** Text deltas; no usage or cost. */
  stream(messages: AiMessage[], options: AiOptions): AsyncIterable<string>;
}
export interface Channel {
  readonly name: string;
  /** Resolves once the server confirmed; `handler` gets every message, the page's own included. */
  subscribe(handler: (message: RealtimeMessage) => void): Promise<void>;
  /** Resolves once the server fanned it out; rejects with PermissionDeniedError when the role may not publish here. */
  publish(event: string, data?: unknown): Promise<void>;
  /** Who is on the channel. */
  presence(): Promise<PresenceUser[]>;
  /**
   * Returns a function that removes the handler. After a reconnect the
   * channel compares who is there with who was, and calls these for the
   * difference: a list kept from presence(), onJoin and onLeave stays right.
   */
  onJoin(handler: (user: PresenceUser) => void): () => void;
  onLeave(handler: (user: PresenceUser) => void): () => void;
  /** Unsubscribes this channel only. */
  close(): void;
}
export interface RealtimeErrorEvent {
  code: string;
  message: string;
  channel?: string;
  capability?: string;
  /** The server took `channel` away (the person's role or the policy changed): its handlers hear nothing more. */
  unsubscribed?: boolean;
}
export interface RealtimeOpenEvent {
  /** false the first time; true when the socket came back after a drop (the channels are subscribed again). */
  reconnected: boolean;
}
export interface RealtimeCloseEvent {
  code: number;
  reason: string;
  /** false after 4401, 4403 and 4429 (and when no channel is left open). */
  willReconnect: boolean;
}
export interface Realtime {
  channel(name: string): Channel;
  /** Every error frame the server sends. */
  onError(handler: (error: RealtimeErrorEvent) => void): () => void;
  /** Every close of the socket. */
  onClose(handler: (event: RealtimeCloseEvent) => void): () => void;
  /** Every open of the socket, once the page's channels are asked for again: refresh what may have changed meanwhile. */
  onOpen(handler: (event: RealtimeOpenEvent) => void): () => void;
}
export interface ConnectionInit {
  /** GET (default), HEAD, POST, PUT, PATCH or DELETE: the profile and the canvas policy decide which are allowed. */
  method?: string;
  /** Sent to the upstream, minus cookies, authorization, forwarding and hop-by-hop headers (at most 32, 16 KiB). */
  headers?: HeadersInit;
  /** At most 256 KiB; ignored for GET and HEAD. */
  body?: BodyInit | null;
  signal?: AbortSignal;
}
export interface ConnectionsApi {
  /**
   * The upstream's answer as a Response, whatever its status; the platform's own refusals reject with an EaselError.
   * `path` is relative to the profile's origin and may carry a query
   * (`'v1/items?limit=10'`; one leading `/` is allowed). Encode path segments
   * yourself (encodeURIComponent) when they hold `/`, `?` or `#`.
   */
  fetch(profile: string, path?: string, init?: ConnectionInit): Promise<Response>;
}
/** `create`'s metadata: `title` is required; access defaults to `private`. */
export interface CreateCanvasMetadata {
  title: string;
  slug?: string;
  tags?: string[];
  access?: 'private' | 'whole_org' | 'public_link' | 'password';
  /** Required for `password` access. */
  password?: string;
  /** Epoch ms, in the future. */
  expiresAt?: number;
  /** Free-form, at most 16 KiB; `sourceApp` and `sourceKind` strings are listed and filterable. */
  metadata?: Record<string, unknown>;
}
/** `update`'s metadata: every field optional; null clears a password or an expiry. */
export interface UpdateCanvasMetadata {
  title?: string;
  tags?: string[];
  access?: 'private' | 'whole_org' | 'public_link' | 'password';
  password?: string | null;
  expiresAt?: number | null;
  metadata?: Record<string, unknown>;
  /** The `updatedAt` last read: a later change by someone else makes the update fail with SHARE_CONFLICT. */
  expectedUpdatedAt?: number;
}
/** Site files by path (`index.html` at the root), as text or bytes. */
export type BundleFiles = Record<string, string | Blob | Uint8Array>;
export interface CanvasesApi {
  /** Creates, publishes and shares a canvas owned by the person using this page. */
  create(metadata: CreateCanvasMetadata, bundle: Blob | BundleFiles): Promise<AuthoredCanvas>;
  /** New settings, and with a bundle a new version at the same URL. */
  update(id: string, metadata: UpdateCanvasMetadata, bundle?: Blob | BundleFiles): Promise<AuthoredCanvas>;
  /** What this person published through pages and still manages; `tags` must all match. */
  list(filters?: { sourceApp?: string; sourceKind?: string; tags?: string[] }): Promise<AuthoredCanvas[]>;
  /** Stops serving it; it stays listed as `unpublished` until a new bundle publishes it again. */
  revoke(id: string): Promise<void>;
  /** A ZIP of `files`, for when a page wants the bundle itself. */
  zip(files: BundleFiles): Promise<Blob>;
}
interface Collection {
  /** A new record (any JSON value, null included); the server assigns its id and author. */
  create(value: unknown): Promise<CollectionRecord>;
  /** Records the caller may read, `limit` 1 to 1000 (default 100). */
  list(options?: { cursor?: string | null; limit?: number }): Promise<CollectionPage>;
  /** Rejects with NOT_FOUND when absent or not readable. */
  get(id: string): Promise<CollectionRecord>;
  /** Replaces the value; the author stays. */
  update(id: string, value: unknown): Promise<CollectionRecord>;
  delete(id: string): Promise<{
    ok: true;
    attachmentCleanupFailed: boolean;
  }>;
  /** Deletes every record the caller may read and delete. */
  clear(): Promise<{
    deleted: number;
    attachmentCleanupFailed: boolean;
  }>;
  /** Adds `by` (default 1) to a numeric record, atomically; NOT_NUMERIC otherwise. */
  increment(id: string, by?: number): Promise<CollectionRecord>;
  permissions(): Promise<CollectionPermissions>;
  /** Only for the audience the policy's `aggregateCount` names. */
  count(): Promise<number>;
}
interface Submissions {
  /** Creates or replaces the caller's submission. */
  submit(value: unknown): Promise<SubmissionRecord>;
  /** Rejects with NOT_FOUND when the caller has none. */
  mine(): Promise<SubmissionRecord>;
  /** Idempotent. */
  withdraw(): Promise<{
    ok: true;
  }>;
  /** Owners and editors: everyone's, in userId order. */
  list(options?: { cursor?: string | null; limit?: number }): Promise<SubmissionPage>;
  /** Owners and editors (and a viewer for their own id). */
  remove(userId: string): Promise<{
    ok: true;
  }>;
  /** Owners and editors: every submission in the collection. */
  clear(): Promise<{
    ok: true;
  }>;
}
export interface Easel {
  /** The server version that built this bundle. */
  readonly version: string;
  me(): Promise<Identity>;
  readonly kv: Kv;
  readonly files: Files;
  readonly ai: AiApi;
  readonly realtime: Realtime;
  readonly connections: ConnectionsApi;
  /** Records of a collection the runtime policy configures. */
  collections(name: string): Collection;
  /** One submission per person in `collection`. */
  submissions(collection: string): Submissions;
  /** Authoring: canvases this page publishes for the person using it. */
  readonly canvases: CanvasesApi;
  /** Sends the visitor to sign in and back to this page (what to do with an UnauthorizedError). */
  signIn(): void;
  readonly EaselError: typeof EaselError;
  readonly QuotaExceededError: typeof QuotaExceededError;
  readonly CapabilityDisabledError: typeof CapabilityDisabledError;
  readonly PermissionDeniedError: typeof PermissionDeniedError;
  readonly UnauthorizedError: typeof UnauthorizedError;
}

declare global {
  interface Window {
    easel: Easel;
  }
  const easel: Easel;
}
