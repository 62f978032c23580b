// easel.me(): who the server says the viewer is on this canvas.
import type { Transport } from './request.ts';

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
  /** Names of the configured collections, file groups, channels and granted Connections. */
  resources: { collections: string[]; fileGroups: string[]; channels: string[]; connections: string[] };
}

export function createMe(t: Transport): () => Promise<Identity> {
  return () => t.request<Identity>('GET', '/me');
}
