// The browser SDK's public types: sdk/v1.d.ts (served as /sdk/v1.d.ts) is
// generated from this list by src/serve/sdk-types.ts (`bun run sdk:types`;
// build.ts regenerates it for the binary, and test/sdk-types.test.ts fails
// when the committed file is stale). Add a type here to publish it.
export { CapabilityDisabledError, EaselError, PermissionDeniedError, QuotaExceededError, UnauthorizedError } from './errors.ts';
export type { Identity, IdentityPermissions, CanvasRole, FileScope } from './wire.ts';
export type { Kv, KvEntry, KvListOptions, KvPage, KvScope } from './kv.ts';
export type { FileRecord, Files, UploadOptions, UploadResult } from './files.ts';
export type { AiApi, AiChatResult, AiMessage, AiOptions, AiUsage } from './ai.ts';
export type {
  Channel,
  PresenceUser,
  Realtime,
  RealtimeCloseEvent,
  RealtimeErrorEvent,
  RealtimeMessage,
  RealtimeOpenEvent,
  Sender,
} from './realtime.ts';
export type { ConnectionInit, ConnectionsApi } from './connections.ts';
export type { AuthoredCanvas, BundleFiles, CanvasesApi, CreateCanvasMetadata, UpdateCanvasMetadata } from './canvases.ts';
export type { Easel } from './client.ts';
