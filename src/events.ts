// In-process notifications between features that must not import each other
// (e.g. deploy's unpublish closes realtime sockets). Listeners run
// synchronously; a failing listener is logged and never breaks the emitter.

export interface EventMap {
  /** Live pointer cleared. */
  'canvas.unpublished': { canvasId: string };
  /** A new version went live (deploy or rollback). */
  'canvas.published': { canvasId: string; versionId: string };
  /** Access settings changed (mode, password, expiry, members, status): open sessions must revalidate. */
  'canvas.access-changed': { canvasId: string };
  'canvas.deleted': { canvasId: string };
  /** Capability switches or the runtime policy changed. */
  'canvas.capabilities-changed': { canvasId: string };
  /** Deactivated, or lost the right to publish public links. */
  'user.changed': { userId: string };
  /** Somebody signed out (a session or a guest session ended): sockets it opened must go. */
  'session.ended': Record<string, never>;
  /** Instance settings changed (public links, AI, file quotas). */
  'settings.changed': Record<string, never>;
}

type Listener<K extends keyof EventMap> = (payload: EventMap[K]) => void;

export class EventBus {
  private readonly listeners = new Map<keyof EventMap, Array<Listener<never>>>();

  constructor(private readonly onError: (event: string, err: unknown) => void = () => {}) {}

  on<K extends keyof EventMap>(event: K, listener: Listener<K>): () => void {
    const list = this.listeners.get(event) ?? [];
    list.push(listener as Listener<never>);
    this.listeners.set(event, list);
    return () => {
      const i = list.indexOf(listener as Listener<never>);
      if (i >= 0) list.splice(i, 1);
    };
  }

  emit<K extends keyof EventMap>(event: K, payload: EventMap[K]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as Listener<K>)(payload);
      } catch (err) {
        this.onError(event, err);
      }
    }
  }
}
