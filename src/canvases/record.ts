export type AccessMode = 'restricted' | 'whole_org' | 'public_link';
export type Audience = 'editors' | 'viewers';
export type CanvasStatus = 'active' | 'archived' | 'disabled';
export type CanvasRole = 'owner' | 'editor' | 'viewer';
export const CAPABILITY_SWITCHES = ['backend', 'kv', 'files', 'ai', 'realtime', 'authoring'] as const;
export type CapabilitySwitch = (typeof CAPABILITY_SWITCHES)[number];

/** A canvas row as the services see it. Secrets (key hash, password hash) stay in the store. */
export interface Canvas {
  id: string;
  slug: string;
  title: string;
  ownerId: string;
  accessMode: AccessMode;
  hasPassword: boolean;
  passwordVersion: number;
  expiresAt: number | null;
  publicationToken: string;
  currentVersionId: string | null;
  capabilities: Record<CapabilitySwitch, boolean>;
  aiAudience: Audience;
  connectionsAudience: Audience;
  guestAi: boolean;
  guestAiMonthlyUsd: number;
  /** The owner lets the canvas's pages register service workers (off by default). */
  serviceWorkers: boolean;
  runtimePolicy: unknown | null;
  runtimePolicyRevision: string | null;
  archivedAt: number | null;
  disabledAt: number | null;
  disabledReason: string | null;
  deletedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** active, archived or disabled (disabled wins: an admin's word is final). Deleted canvases are never shown. */
export function statusOf(c: Canvas): CanvasStatus {
  if (c.disabledAt !== null) return 'disabled';
  if (c.archivedAt !== null) return 'archived';
  return 'active';
}
