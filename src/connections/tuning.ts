// The numbers of spec "Limits / Connections", in one mutable object per app
// context so tests can shorten the deadline or shrink a limit.
export interface ConnectionsTuning {
  /** One deadline for DNS, the request, every redirect and reading the body. */
  deadlineMs: number;
  maxRedirects: number;
  maxResponseBytes: number;
  maxRequestBytes: number;
  /** The relative path plus query, as sent upstream (still percent-encoded). */
  maxUrlBytes: number;
  maxHeaders: number;
  /** Caller headers after stripping, counted as `name: value\r\n`. */
  maxHeaderBytes: number;
  perActorPerMin: number;
  perProfilePerMin: number;
  perCanvasConcurrent: number;
  processConcurrent: number;
}

export const DEFAULT_TUNING: Readonly<ConnectionsTuning> = Object.freeze({
  deadlineMs: 10_000,
  maxRedirects: 3,
  maxResponseBytes: 2 * 1024 * 1024,
  maxRequestBytes: 256 * 1024,
  maxUrlBytes: 8 * 1024,
  maxHeaders: 32,
  maxHeaderBytes: 16 * 1024,
  perActorPerMin: 60,
  perProfilePerMin: 600,
  perCanvasConcurrent: 5,
  processConcurrent: 50,
});
