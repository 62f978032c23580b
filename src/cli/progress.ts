// Progress on stderr: a redrawn bar on a terminal, a few plain lines
// otherwise (CI logs stay short and readable).

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal. */
  isTTY: boolean;
}

const BAR_WIDTH = 24;
const REDRAW_MS = 80;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/** Tracks one phase (hashing, uploading) of `total` items and `totalBytes` bytes. */
export class Progress {
  private done = 0;
  private bytes = 0;
  private lastDraw = 0;
  private lastStep = -1;
  private drawn = false;

  constructor(
    private readonly io: CliIO,
    private readonly label: string,
    private readonly total: number,
    private readonly totalBytes: number,
    /** Plain output: how many lines over the whole phase (1 = only when done). */
    private readonly plainSteps = 10,
  ) {}

  advance(bytes: number): void {
    this.done++;
    this.bytes += bytes;
    if (this.io.isTTY) {
      const now = performance.now();
      if (now - this.lastDraw >= REDRAW_MS || this.done === this.total) {
        this.lastDraw = now;
        this.draw();
      }
      return;
    }
    const step = this.total === 0 ? this.plainSteps : Math.floor((this.done * this.plainSteps) / this.total);
    if (step > this.lastStep && step > 0) {
      this.lastStep = step;
      this.io.stderr(`${this.label} ${this.done}/${this.total} (${formatBytes(this.bytes)} of ${formatBytes(this.totalBytes)})\n`);
    }
  }

  note(line: string): void {
    if (this.drawn) this.io.stderr('\r\x1b[2K');
    this.io.stderr(line + '\n');
    if (this.drawn) this.draw();
  }

  /** Ends the bar's line on a terminal. */
  finish(): void {
    if (this.drawn) this.io.stderr('\n');
    this.drawn = false;
  }

  private draw(): void {
    const ratio = this.totalBytes > 0 ? this.bytes / this.totalBytes : this.total > 0 ? this.done / this.total : 1;
    const filled = Math.round(Math.min(1, ratio) * BAR_WIDTH);
    const bar = '#'.repeat(filled) + '-'.repeat(BAR_WIDTH - filled);
    this.io.stderr(
      `\r\x1b[2K${this.label} [${bar}] ${this.done}/${this.total} files, ${formatBytes(this.bytes)} of ${formatBytes(this.totalBytes)}`,
    );
    this.drawn = true;
  }
}
