// One entry of the audit log as GET /api/admin/audit answers it: its own
// module, importing nothing, so the dashboard's TypeScript reads the same
// type the server writes (src/dashboard/ui/audit-words.ts).
export interface AuditEntry {
  id: number;
  at: number;
  actorId: string | null;
  actorKind: string;
  /** The person behind actorId as they are called now (null: a guest, a key, the system, or a removed account). */
  actor: { name: string; email: string } | null;
  canvasId: string | null;
  /** The canvas as it is called now (null when it was deleted for good). */
  canvas: { title: string; slug: string } | null;
  action: string;
  detail: unknown;
}
