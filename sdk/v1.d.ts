// Types of the Easel browser SDK, served as /sdk/v1.d.ts. The script
// /sdk/v1.js defines the global `easel`; save this file next to your code and
// reference it (`/// <reference path="./v1.d.ts" />`) or import its types.

/** Every SDK failure. `status` is the HTTP status, 0 when no answer arrived (NETWORK_ERROR). */
export declare class EaselError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, status: number, message?: string);
}

/** QUOTA_EXCEEDED, GUEST_AI_CAP, BODY_TOO_LARGE. */
export declare class QuotaExceededError extends EaselError {}

/** CAPABILITY_DISABLED. `reason`: backend_off, feature_off or operator_disabled. */
export declare class CapabilityDisabledError extends EaselError {
  readonly capability: string | null;
  readonly reason: string | null;
  readonly hint: string | null;
  constructor(
    code: string,
    status: number,
    message?: string,
    details?: { capability?: string | null; reason?: string | null; hint?: string | null },
  );
}

/** PERMISSION_DENIED: the viewer's role may not do this. */
export declare class PermissionDeniedError extends EaselError {}

export interface Identity {
  /** A user id, or `guest:<inviteId>` for a legacy guest. */
  id: string;
  email: string | null;
  name: string;
  avatarUrl: string | null;
  kind: 'member' | 'guest';
  canvasRole: 'owner' | 'editor' | 'viewer';
  /** Hints for the page's UI; the server rechecks every operation. */
  permissions: Record<string, boolean>;
  resources: { collections: string[]; fileGroups: string[]; channels: string[]; connections: string[] };
}

export interface KvEntry {
  key: string;
  value: unknown;
}

export interface KvPage {
  entries: KvEntry[];
  /** Pass it back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
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
  set(key: string, value: unknown): Promise<{ ok: true }>;
  /** Idempotent. */
  delete(key: string): Promise<{ ok: true }>;
  list(options?: KvListOptions): Promise<KvPage>;
  /** Adds `by` (default 1; a missing key starts at 0) and resolves to the new number. */
  increment(key: string, by?: number): Promise<number>;
}

/** The shared scope; `user` is the viewer's own scope, which nobody else reads. */
export interface Kv extends KvScope {
  readonly user: KvScope;
}

export interface FileRecord {
  id: string;
  name: string;
  size: number;
  mime: string;
  createdAt: number;
  scope: string;
  uploadedBy: string;
}

export interface UploadResult {
  id: string;
  name: string;
  size: number;
  /** Absolute URL of the content on the API host. */
  url: string;
}

/** `scope` (`shared`, the default, or `submission`), or a file `group`, or a `collection` record. */
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
  delete(id: string): Promise<{ ok: true }>;
  /** Synchronous: the absolute content URL. */
  url(id: string): string;
}

export interface AiMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface AiOptions {
  model: string;
  system?: string;
  maxTokens?: number;
}

export interface AiUsage {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}

export interface AiChatResult {
  text: string;
  usage: AiUsage;
  /** USD. */
  cost: number;
}

export interface AiApi {
  chat(messages: AiMessage[], options: AiOptions): Promise<AiChatResult>;
  /** Text deltas; no usage or cost. */
  stream(messages: AiMessage[], options: AiOptions): AsyncIterable<string>;
}

export interface Sender {
  id: string;
  name: string;
  canvasRole: 'owner' | 'editor' | 'viewer';
}

export interface RealtimeMessage {
  channel: string;
  event: string;
  data: unknown;
  /** Resolved by the server, with the sender's live role. */
  from: Sender;
}

export interface PresenceUser {
  id: string;
  name: string;
}

export interface Channel {
  readonly name: string;
  /** Resolves once the server confirmed; `handler` gets every message, the page's own included. */
  subscribe(handler: (message: RealtimeMessage) => void): Promise<void>;
  /** Resolves once sent out; rejects with PermissionDeniedError when the role may not publish here. */
  publish(event: string, data?: unknown): Promise<void>;
  presence(): Promise<PresenceUser[]>;
  /** Each returns a function that removes the handler. */
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
}

export interface RealtimeCloseEvent {
  code: number;
  reason: string;
  /** false after 4401 (access lost), 4403 (realtime off) and 4429 (too many connections). */
  willReconnect: boolean;
}

export interface Realtime {
  channel(name: string): Channel;
  /** Every error frame the server sends. */
  onError(handler: (error: RealtimeErrorEvent) => void): () => void;
  /** Every close of the socket. */
  onClose(handler: (event: RealtimeCloseEvent) => void): () => void;
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
   * `path` is relative to the profile's origin and may carry a query (`'v1/items?limit=10'`).
   */
  fetch(profile: string, path?: string, init?: ConnectionInit): Promise<Response>;
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
  readonly EaselError: typeof EaselError;
  readonly QuotaExceededError: typeof QuotaExceededError;
  readonly CapabilityDisabledError: typeof CapabilityDisabledError;
  readonly PermissionDeniedError: typeof PermissionDeniedError;
}

declare global {
  interface Window {
    easel: Easel;
  }
  const easel: Easel;
}
