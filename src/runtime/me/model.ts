import { Type as T } from '@sinclair/typebox';

const CanvasRole = T.Union([T.Literal('owner'), T.Literal('editor'), T.Literal('viewer')]);

/** GET /v1/c/{slug}/me: the SDK's `Identity` (sdk/wire.ts). */
export const RuntimeIdentity = T.Object({
  id: T.String({ description: 'a user id, or guest:<inviteId> for a legacy guest' }),
  email: T.Union([T.String(), T.Null()]),
  name: T.String(),
  avatarUrl: T.Union([T.String(), T.Null()]),
  kind: T.Union([T.Literal('member'), T.Literal('guest')]),
  canvasRole: CanvasRole,
  permissions: T.Object(
    {
      canWriteSharedKv: T.Boolean(),
      canUploadSharedFiles: T.Boolean(),
      canUploadSubmissionFiles: T.Boolean(),
      canUseAi: T.Boolean(),
      canCreateCanvas: T.Boolean(),
    },
    { description: "hints for the page's UI; the server rechecks every operation" },
  ),
  resources: T.Object(
    { collections: T.Array(T.String()), fileGroups: T.Array(T.String()), channels: T.Array(T.String()), connections: T.Array(T.String()) },
    { description: 'names of the configured collections, file groups, channels and granted Connections' },
  ),
});
