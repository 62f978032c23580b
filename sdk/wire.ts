// The runtime API's wire shapes: what the server answers and the browser SDK
// receives, written once. The server (src/runtime/*) types its answers with
// these; the SDK's public types (sdk/v1.d.ts, generated) come from the same
// declarations. Types only: nothing here reaches the bundle.

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
  resources: { collections: string[]; fileGroups: string[]; channels: string[]; connections: string[] };
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

/** A collection record: `{id, authorId, value, updatedAt}` (the id is the server's, the author is who created it). */
export interface CollectionRecord {
  id: string;
  authorId: string;
  value: unknown;
  updatedAt: number;
}

/** `GET /collections/{name}`, in creation order. */
export interface CollectionPage {
  entries: CollectionRecord[];
  /** Pass it back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** One right on records: on the caller's own, and on anyone's. */
export interface ScopedRight {
  own: boolean;
  any: boolean;
}

/** `GET /collections/{name}/permissions`: what the caller may do now. */
export interface CollectionPermissions {
  read: ScopedRight;
  create: ScopedRight;
  update: ScopedRight;
  delete: ScopedRight;
  increment: ScopedRight;
}

/** A submission: one per person and collection. */
export interface SubmissionRecord {
  userId: string;
  value: unknown;
  updatedAt: number;
}

/** `GET /submissions/{collection}` (owners and editors), in userId byte order. */
export interface SubmissionPage {
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
  audienceSummary: { count: number; names: string[] };
  /** The id of the live version, or null; a new one on every bundle. */
  version: string | null;
  bundleUpdatedAt: number;
  /** `metadata.sourceApp` and `metadata.sourceKind` when they are strings. */
  sourceApp: string | null;
  sourceKind: string | null;
  metadata: Record<string, unknown>;
}
