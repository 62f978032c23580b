// The management API's canvas view (CONTRACT §4). Never carries the key hash or the password hash.
import type { Config } from '../config.ts';
import {
  statusOf,
  type AccessMode,
  type Audience,
  type Canvas,
  type CanvasRole,
  type CanvasStatus,
  type CapabilitySwitch,
} from './record.ts';
import { canvasUrl } from './url.ts';

/** The caller's role, or `admin` for an instance admin who reaches the canvas without managing it themselves. */
export type ViewRole = CanvasRole | 'admin';

export interface CanvasView {
  id: string;
  slug: string;
  url: string;
  title: string;
  ownerId: string;
  role: ViewRole;
  status: CanvasStatus;
  publicationState: 'published' | 'draft';
  accessMode: AccessMode;
  hasPassword: boolean;
  expiresAt: number | null;
  currentVersionId: string | null;
  publicationToken: string;
  capabilities: Record<CapabilitySwitch, boolean>;
  aiAudience: Audience;
  connectionsAudience: Audience;
  /** Easel's own: whether pages may register service workers (owner's choice). */
  serviceWorkers: boolean;
  runtimePolicy: unknown | null;
  runtimePolicyRevision: string | null;
  createdAt: number;
  updatedAt: number;
}

export function canvasView(config: Pick<Config, 'urlMode' | 'baseUrl' | 'canvasHost'>, c: Canvas, role: ViewRole): CanvasView {
  return {
    id: c.id,
    slug: c.slug,
    url: canvasUrl(config, c.slug),
    title: c.title,
    ownerId: c.ownerId,
    role,
    status: statusOf(c),
    publicationState: c.currentVersionId ? 'published' : 'draft',
    accessMode: c.accessMode,
    hasPassword: c.hasPassword,
    expiresAt: c.expiresAt,
    currentVersionId: c.currentVersionId,
    publicationToken: c.publicationToken,
    capabilities: { ...c.capabilities },
    aiAudience: c.aiAudience,
    connectionsAudience: c.connectionsAudience,
    serviceWorkers: c.serviceWorkers,
    runtimePolicy: c.runtimePolicy,
    runtimePolicyRevision: c.runtimePolicyRevision,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

/** What a viewer is shown of a canvas they may open but not manage: no token, policy, settings or versions. */
export type ViewerCanvasView = Pick<
  CanvasView,
  | 'id'
  | 'slug'
  | 'url'
  | 'title'
  | 'ownerId'
  | 'role'
  | 'status'
  | 'publicationState'
  | 'accessMode'
  | 'hasPassword'
  | 'createdAt'
  | 'updatedAt'
>;

/**
 * A canvas in the caller's list: the whole view for those who manage it, the
 * viewer's view otherwise, so the list never shows a viewer what
 * GET /api/canvases/{id} (404 for them) would not.
 */
export function listedCanvasView(
  config: Pick<Config, 'urlMode' | 'baseUrl' | 'canvasHost'>,
  c: Canvas,
  role: ViewRole,
): CanvasView | ViewerCanvasView {
  const full = canvasView(config, c, role);
  if (role !== 'viewer') return full;
  const { id, slug, url, title, ownerId, status, publicationState, accessMode, hasPassword, createdAt, updatedAt } = full;
  return { id, slug, url, title, ownerId, role, status, publicationState, accessMode, hasPassword, createdAt, updatedAt };
}
